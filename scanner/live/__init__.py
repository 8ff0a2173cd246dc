"""What only a running system shows: processes, their environment, the files they hold, their sockets.

`snapshot` is the one module that talks to psutil; it turns what the kernel reports into plain frozen
data. Everything else here is pure interpretation of that data against the catalogs and the inventory.
"""
