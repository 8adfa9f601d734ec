/* plancheck.c - (placeholder; lands with its issue) */
