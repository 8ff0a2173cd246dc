"""What the result is: the inventory, built from evidence, and its JSON contract."""
