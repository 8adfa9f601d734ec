/* emit.c - (placeholder; lands with its issue) */
