/* plan.c - (placeholder; lands with its issue) */
