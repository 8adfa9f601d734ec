/* pto.h - a small code generator for Ascend NPU tile kernels.
   Generated from src/ by tools/amalgamate.c: do not edit by hand.

   WHAT IT IS
     pto takes a kernel written in a tiny IR (text: the .pto format, or built
     through the C API), checks it, lowers composite ops, places every local
     buffer, inserts every pipe synchronisation and writes the kernel source and
     its host code. A reference interpreter runs the IR on host arrays and is the
     oracle for everything the compiler produces.

   DO THIS
     In exactly one C or C++ file:
         #define PTO_IMPLEMENTATION
         #include "pto.h"
     Everywhere else just #include "pto.h".

   OPTIONS (define before the #include that has PTO_IMPLEMENTATION)
     PTO_STATIC              every public function becomes static to that file
     PTO_MALLOC(sz, user)    default allocator (default: malloc)
     PTO_REALLOC(p, sz, user)                    (default: realloc)
     PTO_FREE(p, user)                           (default: free)
                             define all three; each may ignore user
     PTO_ASSERT(x)           internal invariant check (default: assert)
     PTO_NO_HUGEPAGES        the default allocator leaves out its Linux hint
                             (madvise MADV_HUGEPAGE on blocks of 2 MB or more:
                             a large kernel's arrays then take ~60% fewer page
                             faults; a hint only, and off with a PTO_MALLOC or
                             runtime allocator of one's own)
     PTO_IMPLEMENTATION_LINKED  leave the compiler and the interpreter out
                             (what remains: the numerics helpers and an
                             emitted host.c's PTO_HOST_HARNESS part): they
                             come from an object compiled from pto.h once and
                             linked in. ptoc run keeps such objects in its
                             cache (README: "ptoc run").
     A runtime allocator can also be given in pto_ctx_desc.allocator.

   CONTENTS
     base      version, configuration, context, allocator, diagnostics
     ir        the IR: modules, kernels, params, tiles, statements, operands,
               integer expressions, the op table (X-macro) and the C builder API
     passes    parse -> verify -> lower -> plan -> sync -> emit, each a plain
               function over the IR; print and interp sit beside them

   PIPELINE
     Each pass says what it needs and what it guarantees at the top of its
     section; pto_dump(m, buf) prints the IR with what the passes computed
     (ptoc dump STAGE FILE runs the pipeline up to STAGE and prints it).

   LICENSE
     MIT. See the end of the file.
*/
