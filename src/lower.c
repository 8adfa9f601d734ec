/* lower.c - (placeholder; lands with its issue) */
