/* sync.c - (placeholder; lands with its issue) */
