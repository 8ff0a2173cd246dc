"""What an inventory holds, one kind of fact per module."""
