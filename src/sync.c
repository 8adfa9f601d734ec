/* sync.c - the sync inserter: orders every dependency inside a core.

   Needs: a verified module (stamped: pto_module.verified, refused with an
   error otherwise; its relinking clears the stamp and it sets it again on
   PTO_OK) whose local tiles are planned (planned = 1 and
   offset[k] for every slot k). Guarantees, for every core program (a
   vector or cube kernel body, or one section of a mix kernel):
   - every cross-pipe RAW / WAR / WAW dependency is ordered by a chain of
     set_flag / wait_flag pairs (hardware.md section 4);
   - dependent instructions on the same V or M pipe are separated by a
     pipe_barrier; the in-order queues (MTE1/2/3, FIX, S) get nothing;
   - no event id is set twice, waited while unset, or left set at the end;
     and no set of an id can fire before the wait that consumed its previous
     set: a chain of flags orders that wait (on the consumer pipe) before
     the set (on the producer pipe, which may run ahead: the event is
     binary, hardware.md section 4; program order is not enough);
   - at most ids_per_pair (8) ids per ordered pipe pair; M -> FIX uses only
     ids 0..2 (that pair deadlocked with ids 3..7 on one device, s4);
   - deterministic: the same module gives the same statements;
   - time linear in the kernel (one analysis to insert; one more to prove
     the id reuses the colouring could not show ordered, and to check).
   Inserted statements are ordinary op statements (origin PTO_BY_SYNC) whose
   note names the dependency that justified them.

   1. Access records. Each tile or GM operand of an op that reads or writes
      is an access; an xN tile gives one record per slot (slot k of the
      tile's loop iteration n is n mod N). Two accesses conflict when one
      writes and their byte ranges in one space overlap (ends rounded up to
      the 32-byte granule), whatever tiles they name: tiles that share bytes
      after reuse conflict too. GM windows of one tensor conflict unless
      their row or column ranges are provably disjoint: a linear difference
      of loop-invariant terms that is a constant, or (pto__sy_apart_loop)
      starts affine in one loop's variable, through lets, with one
      coefficient, in a loop that is in no loop, kept apart at every
      iteration distance the earlier access can have (an in-place update of
      an inout tensor: review29 M1). Tensors that can never be
      part of a dependency (only read, or only on one in-order pipe) get no
      records.

   2. The analysis is an abstract interpretation of one core's program. Its
      state holds the live records (the latest instance of an operand's
      slot), each with the set of pipes it is known to happen before, and
      the event ids that are set, each with the records its set captured.
      A set_flag on p captures every record of pipe p and every record
      known to happen before p; the wait gives them pipe q. This is the
      happens-before closure over pipes, so a chain of existing flags
      (load -> compute -> store) covers the dependency it implies. Paths
      merge by intersection (a dependency is covered after an if only when
      both branches cover it); a loop is analysed once per phase (iteration
      index mod the lcm of its tiles' N and its rotating ids), then again
      from its heads joined with the back edges until they stop changing,
      and it may exit after any number of iterations, zero included (one
      or more when its trip count is a literal >= 1). A
      loop of T literal iterations, 1 <= T <= its period, is analysed
      instead as its T iterations in order (pto__sy_unrolled): no slot or
      rotating id comes round inside it, so the carried pairs the fixpoint
      would add for it could never order anything. A new
      access supersedes the live records of its pipe whose bytes it covers
      when it writes or both read (pto__sy_touch), and between top-level
      statements a record that a later one supersedes leaves
      (pto__sy_collect: what a loop's zero-trip path keeps alive), so the
      state is the size of what is in flight (18 records on average on
      bench/emit_bench's kernel), kept in a small array scanned per operand.

   3. Insertion happens during that one analysis. At an access with
      uncovered dependencies it orders one (a same-iteration one before a
      loop-carried one, then the latest source) and looks again, until none
      is left. A dependency from A to B inside the same iteration of every
      common loop gets set_flag right after A's ancestor and wait_flag right
      before B's ancestor in their lowest common block, so both run equally
      often. A loop-carried one (B before A in their common loop L) gets the
      loop idiom: prime before L, wait before B's ancestor, set after A's,
      in their lowest common block (L's body, or an if in it that holds
      both: the pair runs in the iterations that take it, set and wait
      alike; around the if its set would run in the others with nothing to
      order its id's reuse), drain after L (balanced for any trip count,
      zero included); the
      prime and drain move out through the loops (and ifs) around L whose bodies
      touch the dependency's bytes only inside L (pto__sy_anchor): each id
      still alternates set and wait over the whole nest, and L's pipeline
      does not empty at every outer iteration. The drains then move down
      past the next statements of their block whose consumer-pipe accesses
      touch nothing the producer pipe touched there (pto__sy_sink, at most
      one loop): a drain is a wait on an in-order queue, and right after L
      it would hold the next loop's loads until L's last compute ends; the
      colouring moves one back when its pair runs out of ids
      (pto__sy_unsink). The primes, symmetrically, move up past the
      statements before L whose producer-pipe accesses touch nothing the
      consumer pipe touches in L (pto__sy_rise, at most one loop): a prime
      is a set on an in-order queue, and right before L it would fire only
      when the previous loop's last compute ends, holding L's first loads.
      Set earlier it captures less; the re-analysis of L that every carried
      pair causes replays it with its capture as of its place
      (pto__sy_prime_op), so what it no longer orders gets its own pair; the
      colouring moves it back when ids run short (pto__sy_unrise). When the
      conflicting slots recur only every D iterations, the pair rotates
      M = min(D, N) ids with id = base + ((i - start) / step) % M, built
      from the loop's own start and step, so any start and step is right.
      A forward pair inside a loop rotates too (pto__sy_fwd_rotation): its
      producer may run a whole iteration ahead of the consumer, so with one
      id the next iteration's set could fire before this iteration's wait.
      The consumer's access of iteration i and the producer's of i + D touch
      the same bytes (D as above, read backwards), a dependency some chain
      orders; so with M >= D ids (a divisor of the loop's period) the next
      set of an id follows the wait of its previous set.
      Same-pipe V or M dependencies get a pipe_barrier instead; after the
      analysis one that another barrier of its pipe precedes on every path,
      with only declarations, lets and flags between, goes
      (pto__sy_bar_implied: an if's else branch after a barrier before the
      if).
      The new pair's effect is applied where the analysis stands: every
      record and hb bit carries the analysis time it was issued / acquired,
      so the set placed in the past (after A's ancestor, time t) captured
      exactly the live records of its pipe issued by t and those ordered
      before its pipe by t; they now happen before q (pto__sy_apply, also
      on the states kept by the loops and ifs opened since the wait). When
      a loop around the pair has already been through an iteration, its
      heads were computed without the pair and would be too pessimistic, so
      that loop is analysed again from its entry (pto__sy_loop): this is the
      case of every loop-carried pair (its prime becomes part of the entry).
      The carried pairs of one visit share that re-analysis: after the
      first, the visit goes on with an optimistic effect of the pair (see
      pto__sy_defer) to find the others, and the loop is analysed again
      when the visit ends. When every pair deferred so far is a barrier
      (no event id, so no set that a later visit would miss), the loop's
      fixpoint goes on to its next visits first, until a flag pair is
      deferred too, the loop has had one visit more than its period, or it
      converges: the carried flag pair that only the next phase's visit
      finds shares the same re-analysis (softmax-like loops: 9 -> 7 body
      visits). Those visits start from heads partly made before the
      barrier existed, so they could in principle place a pair that the
      exact re-analysis would not need (never miss one: that re-analysis
      still follows); on the repo's kernels, the bench's and 40,000 random
      ones the output is the same as with the re-analysis at once.
      Forward pairs whose wait sits right before that loop, placed during
      its visit, are dropped then and placed again only if still needed: a
      carried pair's prime (through a chain of flags) often orders them.
      There is no trial-removal sweep: test_sync's and the examples'
      necessity tests remove each inserted group and see a race.

   4. Event ids. During insertion every group has private virtual ids;
      afterwards each ordered pipe pair colours its groups' lifetimes
      (set..wait, or prime..drain of a loop) greedily in program order with
      the lowest free ids. When ids run out, a rotating carried group
      first shares the pair of an earlier group of its loop, pipes and
      rotation whose set then moves after its own (pto__sy_share: it keeps
      its buffering; one note per shared pair, review28 L6); else its
      rotation degrades N -> 2 -> 1 (a warning for a carried group, a note for
      a forward one: pto__sy_degrade); then a forward group's set_flag moves later
      in its block, before its wait, to where an id is free (the wait does
      not move: nothing is lost, no warning); then a one-id group shares the
      pair of an earlier group of its pipes whose set moves after its own
      (pto__sy_share: a warning when the waiting pipe has work between the
      two waits, pto__sy_busy_between; else a note); and only then the group becomes a PIPE_ALL
      barrier (which orders at least as much; a warning naming the tiles and
      pipes). A kernel whose run made such barriers is synchronised once
      more over them alone, as if written, and keeps that result when it
      makes no fallback of its own (pto__sy_kernel_runs: the carried pairs a
      barrier in the loop body orders go; review26 A-M6). The notes are written between the analysis and the colouring,
      all at once: one exact reservation of the string pool.
      Reuse: an id freed in program order (its wait passed) may still be
      set on a device, since the producer pipe runs ahead, unless a chain of
      flags orders that wait before the new set. The colouring prefers the
      free ids whose reuse a flag pair of the reverse direction between the
      two shows ordered (pto__sy_order_pos; ids never used too), the oldest
      first. When it takes one it cannot show ordered, it leaves that
      reuse to the CHECK analysis, which sees every chain of flags: a pair
      q -> r and then one r -> p order it as well as a reverse pair does
      (an order pair made at once here, before that analysis, was redundant
      in 3 of the repo's kernels, 35 pairs in 2,000 random ones: review23 L8).
      A pair of the reverse direction counts when it
      surely runs in between: in a block around the new set, or in loops of
      literal trip count >= 1 there (the loop between two loops that reuse
      an id); a carried pair counts by its last body set and its drain
      (pto__sy_carried_proof). An id taken so is shown ordered after all
      by a chain of two pairs q -> r, r -> p that surely run between, each
      a one-block forward pair or a carried pair (its first prime, its body
      wait) (pto__sy_chain_sure: the bench's MTE3 -> MTE2 ids reused over a
      loop whose loads and stores meet in V); when the base taken is not
      shown so, another free base that such a chain shows is taken instead
      (pto__sy_chain_free: a loop's ids reused two loops on, ordered by the
      later loop's primes, need no order pair; review26 A-M3). A group's own reuse from one iteration to
      the next counts as shown only in the plain case (pto__sy_self_sure:
      no if between its accesses and its flags, the dependency back from
      its consumer to its producer in every iteration, primes and drains
      in no loop). When the colouring showed every reuse so and the kernel
      has no flags of its own, that is the pass's result (check off).
      Otherwise the CHECK analysis (5) runs, collecting each
      set that breaks the rule: each gets an order pair q -> p (the
      reverse pair: set right after the old wait's ancestor, waited right
      before the new set's, in their lowest common block, with an id free
      over that stretch), or its loop idiom when the old wait is a later
      iteration's. The violations of one round that one such pair can
      serve share it (a rotation's M reuses after a loop: one pair, not M):
      it is set after the latest of their old waits whose ancestor still
      precedes the new set's (pto__sy_viol_latest), and those it orders get
      none of their own (pto__sy_viol_covered). Only when none fits (no id
      free, or it did not help) a group falls
      back to a PIPE_ALL barrier, with a warning that says so
      (pto__sy_order_reuse); then the analysis runs again until it finds
      nothing. Other groups keep their ids: each round only adds order.

   Memory: a placed statement is written straight into the module (wait
   shares its set's operands, drain its prime's, barriers their pipe's; a
   loop's rotation expression is shared by its groups); records are 20
   bytes, counted before they are made; groups 64, entries 20; the
   module's arrays get one reservation from per-access ratios, and the
   arrays that grow per placement or per operand (idc, seen_head) one step
   to what those reservations imply, not doublings that copy. Page faults
   are the measure (~6 us each on a small VM): bench/emit_bench at 100k
   instructions touches about 89 MB here (21,700 pages: the placed
   statements, operands and id expressions 39 MB, groups and entries 13,
   the notes 14, the records 7, the per-statement and per-operand tables
   the rest).

   5. Check (pto_sync_desc.check, on in ptoc and the tests). The analysis
      runs once more with the hardware ids: any unordered dependency or flag
      misuse now is an internal error. It re-proves what insertion and the
      colouring guarantee by construction, so it is a self-check, like
      pto_plan_check, not part of producing the result. It also models each
      id as a pseudo-record (pto__sy_id_waited): a wait leaves one on the
      consumer pipe, flags carry it like an access, and the id's next set
      needs it ordered before the producer pipe (pto__sy_id_reuse); once
      ordered before it, the record leaves the state. That part also orders
      the reuses the colouring could not (4): pto__sy_order_reuse runs it,
      with or without check, and its last round, finding nothing, is the
      check. */

#define PTO__SY_ALLBITS 0x7f        /* the queues S..FIX; ALL is not a queue */
#define PTO__SY_VBASE (1 << 20)     /* virtual ids of insertion rounds */
#define PTO__SY_REAL 512            /* 8 src x 8 dst x 8 ids */
#define PTO__SY_GRAN 32             /* conflicts are decided per 32-byte granule */
#define PTO__SY_MAXROT 8
#define PTO__SY_FW 2                /* words of a pto__sy_fs (4: sync 3% slower on the bench) */
#define PTO__SY_NFL (64 * PTO__SY_FW) /* event ids set at once in the analysis (see "analysis state") */
#define PTO__SY_MAXPASS 8           /* loop fixpoint rounds before giving up */
#define PTO__SY_RDONLY 0x80         /* pto__sy_e.skip: the record only reads (no pipe has bit 7) */

enum { PTO__SY_RD = 1, PTO__SY_WR = 2 };

/* A set of event-id slots of a state (pto__sy_st.fused, pto__sy_e.cap). */
typedef struct pto__sy_fs {
    uint64_t w[PTO__SY_FW];
} pto__sy_fs;

enum { PTO__SY_FWD, PTO__SY_LOOP, PTO__SY_BAR, PTO__SY_DEAD };
enum { PTO__SY_PRIME, PTO__SY_WAIT, PTO__SY_SET, PTO__SY_DRAIN, PTO__SY_BARRIER };
enum { PTO__SY_FIND, PTO__SY_CHECK };

typedef struct pto__sy_rec {   /* 20 bytes: a long kernel has hundreds of thousands */
    int32_t lo, hi;             /* local: byte range, end rounded to the granule (< 2 GB: planned) */
    int32_t stmt, opnd;
    uint8_t slot, pipe, rw, space;
} pto__sy_rec;

typedef struct pto__sy_grp {   /* 64 bytes: one per flag pair or barrier (120,000 at 100k instructions) */
    uint8_t kind, src, dst;
    uint8_t carried;            /* the dependency that made it is loop-carried */
    uint8_t nids;               /* rotation M (1 = a single id; <= PTO__SY_MAXROT) */
    uint16_t ne;                /* its ents: ents[e0 .. e0 + ne) (a set, a wait, primes and
                                   drains: at most 2 + 2 * PTO__SY_MAXROT) */
    int32_t loop;               /* LOOP: the FOR statement */
    int32_t anchor;             /* LOOP: the statement its primes precede and drains follow:
                                   loop, or a loop around it (pto__sy_anchor) */
    int32_t dafter;             /* LOOP: the statement its drains follow: anchor, or a later
                                   one of its block (pto__sy_sink) */
    int32_t pbefore;            /* LOOP: the statement its primes precede: anchor, or an
                                   earlier one of its block (pto__sy_rise) */
    int32_t base;               /* hardware id base; -1 = none yet / fallback */
    int32_t arec, bstmt, bopnd; /* the dependency that made it */
    int32_t note;               /* dependency text (string pool, pto__sy_note) */
    int32_t pb;                 /* forward: the statement its wait precedes */
    int32_t pnote, dnote;       /* "prime: " / "drain: " + note, once made */
    int32_t e0;                 /* its first ent (ne: how many) */
    int32_t brec;               /* the dependency's second record (its note) */
} pto__sy_grp;

typedef struct pto__sy_ent {   /* 20 bytes: two or three per group */
    int32_t stmt;               /* -1 once removed */
    int32_t grp;
    int32_t ebase, emod;        /* exprs: the INT id base (+k), the ADD base + rotation (or -1) */
    int8_t k;                   /* prime/drain: which id of the rotation (< PTO__SY_MAXROT); -1 set/wait */
    uint8_t role;
} pto__sy_ent;

/* One live access record in a state: the latest instance of an operand's
   slot, when it was issued, which pipes it is known to happen before (and
   since when), and which pending sets captured it. */
typedef struct pto__sy_e {
    int32_t lo, hi;             /* the record's byte range (GM: all), pipe,   */
    int32_t rid;                /* space and access, copied here: every scan  */
    uint8_t pipe, space, rw;    /* reads them                                 */
    uint8_t bits;
    uint8_t skip;               /* pto__sy_scan's one test: bits, the pipe's own bit when it
                                   is an in-order queue, PTO__SY_RDONLY when it only reads */
    uint8_t need;               /* pto__sy_done's pipes for it (pto__sy_need_table) */
    uint32_t ts;
    uint32_t hts[7];
    pto__sy_fs cap;             /* the pending sets that captured it */
} pto__sy_e;

typedef struct pto__sy_st {
    int reached;
    int32_t n, cap_e;
    pto__sy_e *e;               /* [n] live records, in no particular order */
    pto__sy_fs fused;           /* event-id slots in use */
    int32_t fkey[PTO__SY_NFL];
    uint8_t fval[PTO__SY_NFL];  /* 1 set, 2 set on some paths */
} pto__sy_st;

/* An open loop or if around the statement being analysed: the states it
   keeps (loop heads and entry, the other branch) that a pair placed in
   place may have to update. */
typedef struct pto__sy_lg {    /* a change made to a loop's entry state */
    int32_t grp, stmt;          /* stmt >= 0: a prime to analyse; -1 pto__sy_apply;
                                   -2 pto__sy_apply_carried */
    uint8_t p, q;
    uint32_t t, w;
} pto__sy_lg;

typedef struct pto__sy_fr {
    int32_t stmt;
    int loop, fresh;            /* fresh: first round, first iteration */
    uint32_t vstart;            /* loop: analysis time its current body visit began */
    pto__sy_st **sv;
    int32_t nsv;
    int32_t g0;                 /* loop: groups before this visit */
    pto__sy_lg *lg;             /* loop: changes to its entry, in order */
    int32_t nlg, cap_lg;
    pto__sy_st *later;          /* loop: its last visit's result, not yet joined into its exits
                                   (sv[nsv - 1]) when later_on: pto__sy_fold */
    int later_on;
} pto__sy_fr;

typedef struct pto__sy_idc {   /* a sync statement's event id, decoded once per analysis */
    int64_t base;
    int32_t loop;
    uint8_t mod;                /* 1..PTO__SY_MAXROT */
    uint8_t p, q;               /* its pipes */
    uint8_t ok;                 /* 0 not yet, 1 decoded, 2 not analysable */
} pto__sy_idc;

typedef struct pto__sy_seen_e {
    int32_t rec, next;
    uint8_t dropped;            /* its group was dropped (pto__sy_reenter): it may be placed again */
    uint8_t again;              /* times placed again after a drop: PTO__SY_REPLACE, it stays */
} pto__sy_seen_e;

typedef struct pto__sy {
    pto_ctx *ctx;
    pto_module *m;
    int32_t kernel;
    int ids_per_pair;
    int check;                  /* desc->check: run the CHECK analysis */
    int doubt;                  /* the colouring took an id whose reuse it could not show ordered */
    pto_sync_stats stats;
    pto__sy_rec *recs;
    int32_t n_recs, cap_recs;
    int32_t *rec_of;            /* per operand: first record, or -1 */
    uint8_t acc_pipes[PTO_NSPACE], wr_pipes[PTO_NSPACE];  /* pipes that access / write a space */
    uint8_t need[PTO_NSPACE * 32];  /* pto__sy_done */
    uint8_t skip0[PTO_NSPACE * 32]; /* a new record entry's skip, indexed as need */
    int32_t *op_loop;           /* per operand: the FOR that rotates its tile's slots, or -1 */
    uint8_t *op_nbuf;           /* and the tile's N */
    int32_t *lab, *lab_len, n_lab;  /* pto__sy_notes, per statement: its label (pto__sy_label_len) */
    int32_t base_file;          /* pto__sy_label: the file whose base name is */
    const char *base_name;      /* its base name (NULL = none yet) */
    size_t base_len;
    uint32_t *mark_at, stamp;   /* per record: pto__sy_join's index of dst, valid */
    int32_t *mark_k;            /* when mark_at[r] == stamp */
    int32_t *tile_loop;         /* per tile: the FOR that rotates its slots, or -1 */
    uint8_t *inert;             /* per param: its accesses can never be a dependency */
    uint8_t *last_free;         /* per stmt: a tfree no tpop of its pipe can follow (or NULL) */
    int32_t *period, *phase, *pos;  /* per statement */
    int32_t s0;                 /* statements from s0 on are this kernel's placements */
    int32_t *dep, n_dep;        /* per statement numbered by pto__sy_tables: its depth, or -1 */
    uint32_t *tstart, *tend;    /* per statement of the original kernel: its latest visit */
    pto__sy_idc *idc;           /* per placed statement s: idc[s - s0] (grows with them) */
    int32_t n_idc, cap_idc;     /* idc[0 .. n_idc) are initialised */
    pto__sy_idc *uidc;          /* per statement before s0, made when a user's flag is met */
    int32_t n_tt;
    uint32_t now;               /* analysis time */
    pto__sy_grp *grps;
    int32_t n_grps, cap_grps;
    pto__sy_ent *ents;
    int32_t n_ents, cap_ents;
    int32_t bar_arg[PTO_NPIPE]; /* per pipe: a barrier's operand + 1 (0 = none yet) */
    int32_t iter_loop[16], iter_e[16];  /* pto__sy_rotexpr: a loop's iteration index expr + 1 */
    int32_t *seen_head;         /* per operand: its dependencies placed (a list in seen) */
    int32_t cap_seen_head;
    int32_t n_opnd0;            /* operands before any placement (those rec_of covers) */
    pto__sy_seen_e *seen;       /* (record, next, dropped, again) per dependency placed */
    int32_t n_seen, cap_seen;
    int32_t nkeys;
    int32_t *progs, nprogs, cap_progs;     /* core programs: their blocks */
    pto__sy_st **freel;
    int32_t nfree, capfree;
    pto__sy_fr *fr;
    int32_t nfr, cap_fr;
    uint8_t *drop;
    int32_t cap_drop;
    int32_t restart, restart_grp;          /* loop to analyse again, and the group that asked */
    int32_t pend;                          /* loop to analyse again once its body visit ends */
    int32_t *pendg, npendg, cap_pendg;     /* the carried groups that asked for it */
    int mode, stop;
    pto_status status;
    /* the dependency found at the current statement */
    int found, h_fwd;
    int32_t h_rec, h_bstmt, h_bopnd, h_brec, h_apos;
    int noted;                  /* pto__sy_notes has made the notes */
    uint8_t oplen[PTO_NOP];     /* strlen(pto_opinfo_get(op)->name), 0 = not yet */
    uint8_t splen[PTO_NSPACE];  /* strlen(pto_space_name(space)) */
    int32_t iter_mod[16][PTO__SY_MAXROT + 1];  /* pto__sy_rotexpr: its rotation by M + 1 */
    int user_flags;             /* the kernel has set/wait statements of its own (pto__sy_reserved) */
    pto_stmt stmt_tpl;          /* pto__sy_emit: a placed statement before its fields */
    size_t nacc;                /* statements with records (accesses) */
    pto_operand opnd_tpl;       /* pto__sy_operands: an operand before its fields */
    int32_t n_pos;                         /* pos[] covers statements [0, n_pos) (pto__sy_assign) */
    int32_t *shr, n_shr, cap_shr;          /* pto__sy_share: (group, the group whose pair it shares, the
                                              statement from which its consumer waits longer, or -1) */
    /* id reuse (pto__sy_id_reuse): a CHECK analysis that collects the sets
       not ordered after their id's previous wait (statement, key, wait)
       instead of failing; pto__sy_order_reuse orders each (an order pair)
       or falls back (it runs always: the colouring's proof is not trusted alone). done: the
       (set, wait) pairs an order pair was made for (a second time: fallback) */
    int collect;
    int32_t last_set[PTO__SY_REAL];        /* per hardware key: 1 + the latest set_flag analysed, 0 none (the
                                              statement named when an id is left set at the end) */
    int32_t *viol, n_viol, cap_viol;
    int32_t *done, n_done, cap_done;
    struct pto__sy_acc *acc;               /* pto__sy_blk_accs: the accesses of listed blocks, in walk order */
    int32_t n_acc, cap_acc;
    int32_t *blk_acc;                      /* per block: 1 + its first entry in acc (0 = not listed), count */
    int32_t *ord_prev;                     /* pto__sy_assign, per place k of its order: the place before k of
                                              a group of the same pair, or -1 (then k's pair: n more) */
    int32_t ord_last[64];                  /* per pair src * 8 + dst: its latest place before the group coloured */
#ifdef PTO__SY_VISITS
    long visits[2];                        /* loop body visits of FIND / CHECK (a debug count) */
#endif
} pto__sy;

/* ---- small helpers ------------------------------------------------------- */

static int pto__sy_inorder(int p) { return p != PTO_PIPE_V && p != PTO_PIPE_M; }
static int pto__sy_lowbit(unsigned v)
{
    int i = 0;
    while (v && !(v & 1u)) { v >>= 1; i++; }
    return i;
}
static int pto__sy_issync(int op)
{
    return op == PTO_OP_SET_FLAG || op == PTO_OP_WAIT_FLAG || op == PTO_OP_PIPE_BARRIER;
}
static int64_t pto__sy_gcd(int64_t a, int64_t b) { while (b) { int64_t t = a % b; a = b; b = t; } return a; }
static int64_t pto__sy_lcm(int64_t a, int64_t b) { return a / pto__sy_gcd(a, b) * b; }

/* (A pointer, not a pto_loc by value: see pto__ps_tloc on tcc.) */
static const pto_loc *pto__sy_noloc(void)
{
    static const pto_loc none = {0, 0, 0};
    return &none;
}

static void pto__sy_fail(pto__sy *sy, pto_status st)
{
    if (sy->status == PTO_OK) sy->status = st;
    sy->stop = 1;
}

static void *pto__sy_zalloc(pto__sy *sy, size_t n)
{
    void *p = pto_alloc(sy->ctx, n);
    if (!p) {
        pto_error(sy->ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return NULL;
    }
    memset(p, 0, n);
    return p;
}

/* A buffer of n bytes for a new array, made from one the pass no longer
   needs (*old, set to NULL): realloc keeps the pages the old one touched,
   where a free and a new allocation of a large array would map fresh pages
   and fault each one in again. Zeroed if `zero`. Out of memory: NULL,
   reported as pto__sy_zalloc (zero) or pto_alloc (not) would. */
static void *pto__sy_reuse(pto__sy *sy, void **old, size_t n, int zero)
{
    void *p = *old ? pto__realloc_quiet(sy->ctx, *old, n) : NULL;
    if (!p) {   /* no old one, or it could not be resized: a new one */
        pto_free(sy->ctx, *old);
        p = zero ? pto__sy_zalloc(sy, n) : pto_alloc(sy->ctx, n);
    } else if (zero) {
        memset(p, 0, n);
    }
    *old = NULL;
    return p;
}

/* Raises an array's capacity to `want` elements of `esz` bytes, in one
   step instead of doublings that copy it. Best effort: a failed reservation is not an error (the array
   still grows on demand). */
static void pto__sy_prealloc(pto__sy *sy, void **p, size_t esz, int32_t *cap, size_t want)
{
    void *q;
    if (want <= (size_t)*cap || want > (size_t)INT32_MAX / 2 || want > (size_t)-1 / esz) return;
    q = pto__realloc_quiet(sy->ctx, *p, want * esz);
    if (!q) return;
    *p = q;
    *cap = (int32_t)want;
}

/* The parent statement (FOR/IF/SECTION) of a statement, or -1. */
static int32_t pto__sy_up(const pto_module *m, int32_t s)
{
    int32_t b = m->stmts[s].block;
    return b < 0 ? -1 : m->blocks[b].owner;
}

static int pto__sy_depth(const pto_module *m, int32_t s)
{
    int d = 0;
    while ((s = pto__sy_up(m, s)) >= 0) d++;
    return d;
}

/* The ancestors-or-selves of a and b that share a block (depths from the
   table pto__sy_tables numbered, where it has them: placing syncs never
   moves a statement that was there then). */
static void pto__sy_lca(const pto__sy *sy, int32_t a, int32_t b, int32_t *pa, int32_t *pb)
{
    const pto_module *m = sy->m;
    int da, db;
    if (m->stmts[a].block == m->stmts[b].block) {   /* the usual case: one block, no depths to look up */
        *pa = a;
        *pb = b;
        return;
    }
    da = a < sy->n_dep && sy->dep[a] >= 0 ? sy->dep[a] : pto__sy_depth(m, a);
    db = b < sy->n_dep && sy->dep[b] >= 0 ? sy->dep[b] : pto__sy_depth(m, b);
    for (; da > db; da--) a = pto__sy_up(m, a);
    for (; db > da; db--) b = pto__sy_up(m, b);
    while (m->stmts[a].block != m->stmts[b].block) {
        a = pto__sy_up(m, a);
        b = pto__sy_up(m, b);
    }
    *pa = a;
    *pb = b;
}

/* The ancestor-or-self of s that sits in block blk. */
static int32_t pto__sy_in_block(const pto_module *m, int32_t s, int32_t blk)
{
    while (s >= 0 && m->stmts[s].block != blk) s = pto__sy_up(m, s);
    return s;
}

static int pto__sy_is_int(const pto_module *m, int32_t e, int64_t v)
{
    return e >= 0 && m->exprs[e].kind == PTO_E_INT && m->exprs[e].value == v;
}

/* e is ((i - start) / step) or (i - start) for a unit step, where i is the
   variable of a loop with that start and step: sets *loop. */
static int pto__sy_iter_of(const pto_module *m, int32_t e, int32_t *loop)
{
    const pto_expr *x = &m->exprs[e];
    int32_t step = -1, L, v;
    if (x->kind == PTO_E_DIV) {
        step = x->b;
        x = &m->exprs[x->a];
    }
    /* i - start, or a bare i when the loop starts at 0 (hand-written ids) */
    if (x->kind == PTO_E_VAR) v = x->a;
    else if (x->kind == PTO_E_SUB && m->exprs[x->a].kind == PTO_E_VAR) v = m->exprs[x->a].a;
    else return 0;
    if (v < 0 || v >= m->n_vars || m->vars[v].kind != PTO_V_LOOP) return 0;
    L = m->vars[v].def;
    if (L < 0 || m->stmts[L].kind != PTO_ST_FOR) return 0;
    if (x->kind == PTO_E_VAR ? !pto__sy_is_int(m, m->stmts[L].e[0], 0) : !pto__expr_same(m, x->b, m->stmts[L].e[0]))
        return 0;
    if (m->stmts[L].e[2] < 0 ? !(step < 0 || pto__sy_is_int(m, step, 1))
                             : !(pto__expr_same(m, step, m->stmts[L].e[2])
                                 || (step < 0 && pto__sy_is_int(m, m->stmts[L].e[2], 1))))
        return 0;
    *loop = L;
    return 1;
}

/* The event-id forms the analysis understands: INT, or
   INT + ((i - start) / step) % INT (what this pass writes), or the shorter
   ones people write: ((i - start) / step) % INT, and i / step or i in
   place of the iteration index when the loop starts at 0 (with step 1 for
   a bare i). */
static int pto__sy_idform(const pto_module *m, int32_t e, int64_t *base, int64_t *mod, int32_t *loop)
{
    const pto_expr *x, *md;
    *base = 0;
    *mod = 1;
    *loop = -1;
    if (e < 0 || e >= m->n_exprs) return 0;
    x = &m->exprs[e];
    if (x->kind == PTO_E_INT) { *base = x->value; return 1; }
    if (x->kind == PTO_E_MOD) md = x;
    else if (x->kind == PTO_E_ADD && m->exprs[x->a].kind == PTO_E_INT) md = &m->exprs[x->b];
    else return 0;
    if (md->kind != PTO_E_MOD || m->exprs[md->b].kind != PTO_E_INT) return 0;
    *base = md == x ? 0 : m->exprs[x->a].value;
    *mod = m->exprs[md->b].value;
    if (*mod < 1 || *mod > PTO__SY_MAXROT) return 0;
    return pto__sy_iter_of(m, md->a, loop);
}

/* ---- GM windows ------------------------------------------------------------
   A linear form c + sum coef * leaf over loop-invariant leaves (dims, scalars,
   top-level lets, builtins). Anything else is unknown and makes two windows
   "may overlap". Loop variables are never leaves of a constant difference
   (pto__sy_const_diff): two instances of one access in different iterations
   see different values. pto__sy_apart_loop reads them as leaves (loops = 1,
   lets inside loops expanded) and then tells the two instances apart. All
   arithmetic is checked: a form that does not fit int64 is unknown. */

typedef struct pto__sy_lin {
    int64_t c;
    int n;
    int32_t leaf[8];            /* var id, or -1 - builtin kind */
    int64_t coef[8];
} pto__sy_lin;

/* a + b and a * b when the exact result fits int64 (else 0). */
static int pto__sy_add64(int64_t a, int64_t b, int64_t *r)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return 0;
    *r = a + b;
    return 1;
}

static int pto__sy_mul64(int64_t a, int64_t b, int64_t *r)
{
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) : (a < 0 && (b > 0 ? a < INT64_MIN / b : b < 0 && a < INT64_MAX / b)))
        return 0;
    *r = a * b;
    return 1;
}

static int pto__sy_lin_add(pto__sy_lin *l, int32_t leaf, int64_t coef)
{
    int i;
    for (i = 0; i < l->n; i++)
        if (l->leaf[i] == leaf) return pto__sy_add64(l->coef[i], coef, &l->coef[i]);
    if (l->n == 8) return 0;
    l->leaf[l->n] = leaf;
    l->coef[l->n++] = coef;
    return 1;
}

static int64_t pto__sy_lin_coef(const pto__sy_lin *l, int32_t leaf)
{
    int i;
    for (i = 0; i < l->n; i++)
        if (l->leaf[i] == leaf) return l->coef[i];
    return 0;
}

/* l += k * e. loops: loop variables are leaves too, and a let defined in a
   loop stands for its value (the same iteration's: a let is read only where
   its loop's variable has the value it was computed with); depth bounds a
   chain of lets. */
static int pto__sy_linear(const pto_module *m, int32_t e, int64_t k, pto__sy_lin *l, int loops, int depth)
{
    const pto_expr *x;
    int64_t v;
    if (e < 0 || e >= m->n_exprs || depth > 32) return 0;
    x = &m->exprs[e];
    switch (x->kind) {
    case PTO_E_INT: return pto__sy_mul64(k, x->value, &v) && pto__sy_add64(l->c, v, &l->c);
    case PTO_E_ADD: return pto__sy_linear(m, x->a, k, l, loops, depth) && pto__sy_linear(m, x->b, k, l, loops, depth);
    case PTO_E_SUB:
        return k != INT64_MIN && pto__sy_linear(m, x->a, k, l, loops, depth) && pto__sy_linear(m, x->b, -k, l, loops, depth);
    case PTO_E_NEG: return k != INT64_MIN && pto__sy_linear(m, x->a, -k, l, loops, depth);
    case PTO_E_MUL:
        if (m->exprs[x->a].kind == PTO_E_INT)
            return pto__sy_mul64(k, m->exprs[x->a].value, &v) && pto__sy_linear(m, x->b, v, l, loops, depth);
        if (m->exprs[x->b].kind == PTO_E_INT)
            return pto__sy_mul64(k, m->exprs[x->b].value, &v) && pto__sy_linear(m, x->a, v, l, loops, depth);
        return 0;
    case PTO_E_VAR: {
        const pto_var *var;
        if (x->a < 0 || x->a >= m->n_vars) return 0;
        var = &m->vars[x->a];
        if (var->kind == PTO_V_LOOP && !loops) return 0;
        if (var->kind == PTO_V_LET && (var->def < 0 || pto_stmt_loop(m, var->def) >= 0)) {
            if (!loops || var->def < 0 || var->def >= m->n_stmts || m->stmts[var->def].kind != PTO_ST_LET) return 0;
            return pto__sy_linear(m, m->stmts[var->def].e[0], k, l, loops, depth + 1);
        }
        return pto__sy_lin_add(l, x->a, k);
    }
    case PTO_E_BLOCK: case PTO_E_BLOCKS: case PTO_E_SUBBLOCK: case PTO_E_RANK: case PTO_E_NRANKS:
        return pto__sy_lin_add(l, -1 - (int32_t)x->kind, k);
    default:
        return 0;
    }
}

/* a - b as a constant, if it is one. */
static int pto__sy_const_diff(const pto_module *m, int32_t a, int32_t b, int64_t *d)
{
    pto__sy_lin l;
    int i;
    memset(&l, 0, sizeof l);
    if (a < 0 && b < 0) { *d = 0; return 1; }
    if (a < 0 || b < 0) return 0;
    if (!pto__sy_linear(m, a, 1, &l, 0, 0) || !pto__sy_linear(m, b, -1, &l, 0, 0)) return 0;
    for (i = 0; i < l.n; i++)
        if (l.coef[i] != 0) return 0;
    *d = l.c;
    return 1;
}

/* The tile that gives a GM window its shape: the op's first tile operand. */
static const pto_tile *pto__sy_window_tile(const pto_module *m, int32_t stmt)
{
    int i;
    for (i = 0; i < m->stmts[stmt].nargs; i++) {
        const pto_operand *o = pto_stmt_arg(m, stmt, i);
        if (o->kind == PTO_O_TILE && o->ref >= 0 && o->ref < m->n_tiles) return &m->tiles[o->ref];
    }
    return NULL;
}

static int64_t pto__sy_const_trips(const pto_module *m, int32_t L);

/* Whether loop L holds statement s (at any depth). */
static int pto__sy_held(const pto_module *m, int32_t s, int32_t L)
{
    int32_t x;
    for (x = pto_stmt_loop(m, s); x >= 0; x = pto_stmt_loop(m, x))
        if (x == L) return 1;
    return 0;
}

/* Whether D - s * d (s > 0) stays out of (-ea, eb) for every d in
   [dlo, dhi]: it falls as d grows, so only the first d below eb matters. */
static int pto__sy_apart_run(int64_t D, int64_t s, int64_t ea, int64_t eb, int64_t dlo, int64_t dhi)
{
    int64_t x, q, y, dq;
    if (dlo > dhi) return 1;
    if (!pto__sy_mul64(s, dlo, &x) || !pto__sy_add64(D, -x, &x)) return 0;
    if (x <= -ea) return 1;
    if (x < eb) return 0;
    q = (x - eb) / s + 1;   /* the first step that takes x below eb */
    if (!pto__sy_add64(dlo, q, &dq) || dq > dhi) return 1;
    if (!pto__sy_mul64(s, q, &y) || !pto__sy_add64(x, -y, &y)) return 0;
    return y <= -ea;
}

/* Every earlier instance of access a against access b, along window
   coordinate k (0 row, 1 column; a spans ea of them, b eb): apart when the
   two starts are affine in one loop variable v with one coefficient c and
   the same loop-invariant terms (through lets), v's loop L holds both and
   is in no loop (an outer loop's earlier iteration could pair any
   instances), and for every iteration distance d a's instance can have
   (d >= 1; d = 0 too when a can run earlier in b's iteration; d < T with
   a literal trip count T) start_a - start_b = D - c * step * d keeps the
   ranges apart. The scan asks it for the live record a of an access
   before b, standing for every earlier instance not ordered yet (the
   records keep only the latest: so every d counts, not the nearest).
   Two writes on different pipes stay "may overlap": rows apart may still
   share a 32-byte block, and unordered writers of one block race. */
static int pto__sy_apart_loop(const pto__sy *sy, const pto__sy_rec *a, const pto__sy_rec *b, int k, int64_t ea, int64_t eb)
{
    const pto_module *m = sy->m;
    int32_t ia = m->operands[a->opnd].e[k], ib = m->operands[b->opnd].e[k], v = -1, L, pa, pb;
    pto__sy_lin la, lb;
    const pto__sy_lin *side[2];
    int64_t c = 0, st = 1, s, D, T, dlo, t;
    int i, j;
    if (ia < 0 || ib < 0 || ea < 1 || eb < 1) return 0;
    if ((a->rw & PTO__SY_WR) && (b->rw & PTO__SY_WR) && a->pipe != b->pipe) return 0;
    memset(&la, 0, sizeof la);
    memset(&lb, 0, sizeof lb);
    if (!pto__sy_linear(m, ia, 1, &la, 1, 0) || !pto__sy_linear(m, ib, 1, &lb, 1, 0)) return 0;
    side[0] = &la;
    side[1] = &lb;
    for (j = 0; j < 2; j++)
        for (i = 0; i < side[j]->n; i++) {
            int32_t leaf = side[j]->leaf[i];
            int64_t x = pto__sy_lin_coef(&la, leaf), y = pto__sy_lin_coef(&lb, leaf);
            if (x != y) return 0;   /* an invariant term that differs, or a loop's coefficient */
            if (x == 0 || leaf < 0 || m->vars[leaf].kind != PTO_V_LOOP) continue;
            if (v >= 0 && v != leaf) return 0;   /* two loop variables */
            v = leaf;
            c = x;
        }
    if (lb.c == INT64_MIN || !pto__sy_add64(la.c, -lb.c, &D)) return 0;
    if (v < 0) return D >= eb || D <= -ea;   /* lets in a loop that name no loop variable */
    L = m->vars[v].def;
    if (L < 0 || L >= m->n_stmts || m->stmts[L].kind != PTO_ST_FOR || pto_stmt_loop(m, L) >= 0) return 0;
    if (!pto__sy_held(m, a->stmt, L) || !pto__sy_held(m, b->stmt, L)) return 0;
    if (m->stmts[L].e[2] >= 0) {
        if (m->exprs[m->stmts[L].e[2]].kind != PTO_E_INT) return 0;
        st = m->exprs[m->stmts[L].e[2]].value;
    }
    if (!pto__sy_mul64(c, st, &s) || s == 0 || s == INT64_MIN || D == INT64_MIN) return 0;
    /* d = 0: a runs before b in one iteration of L (earlier in L's body, or
       in a loop inside L around both) */
    pto__sy_lca(sy, a->stmt, b->stmt, &pa, &pb);
    dlo = sy->pos[pa] < sy->pos[pb] || pto_stmt_loop(m, pa) != L ? 0 : 1;
    T = pto__sy_const_trips(m, L);
    if (s < 0) { s = -s; D = -D; t = ea; ea = eb; eb = t; }   /* a's start minus b's, mirrored */
    return pto__sy_apart_run(D, s, ea, eb, dlo, T >= 0 ? T - 1 : INT64_MAX);
}

/* Whether the GM windows of a live record a (an access before b: any
   instance not ordered yet) and of b may share bytes. */
static int pto__sy_gm_overlap(const pto__sy *sy, const pto__sy_rec *a, const pto__sy_rec *b)
{
    const pto_module *m = sy->m;
    const pto_operand *oa = &m->operands[a->opnd], *ob = &m->operands[b->opnd];
    const pto_tile *ta = pto__sy_window_tile(m, a->stmt), *tb = pto__sy_window_tile(m, b->stmt);
    int64_t d;
    if (oa->ref != ob->ref) return 0;
    if (!ta || !tb) return 1;
    if (pto__sy_const_diff(m, oa->e[2], ob->e[2], &d) && d != 0) return 0;
    if (pto__sy_const_diff(m, oa->e[0], ob->e[0], &d) && (d >= tb->rows || -d >= ta->rows)) return 0;
    if (pto__sy_const_diff(m, oa->e[1], ob->e[1], &d) && (d >= tb->cols || -d >= ta->cols)) return 0;
    return !pto__sy_apart_loop(sy, a, b, 0, ta->rows, tb->rows) && !pto__sy_apart_loop(sy, a, b, 1, ta->cols, tb->cols);
}

static int pto__sy_overlap(const pto__sy *sy, const pto__sy_rec *a, const pto__sy_rec *b)
{
    if (a->space != b->space) return 0;
    if (a->space == PTO_GM) return pto__sy_gm_overlap(sy, a, b);
    return a->lo < b->hi && b->lo < a->hi;
}

static int pto__sy_conflict(const pto__sy *sy, int32_t ra, int32_t rb)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    if (!((a->rw | b->rw) & PTO__SY_WR)) return 0;
    return pto__sy_overlap(sy, a, b);
}

/* ---- records ---------------------------------------------------------------- */

static inline int pto__sy_grow(pto__sy *sy, void **p, size_t esz, int32_t *cap, int32_t need);

/* ---- tfrees that nothing refills ------------------------------------------ */

/* A tfree's write of its popped tile stands for the next tpop of its
   pipe, which refills those bytes: the flags before the tfree keep that
   tpop after every read of the old data (the scalar unit issues the tpop
   only after the tfree). When no tpop of the pipe can follow the tfree on
   its core (later in program order, or in a later iteration of a loop
   around both), nothing refills the bytes and that write orders nothing:
   it gets no record, so the scalar unit does not stop there to wait for
   the last reads (review23 M3: 10% of a kernel's cycles). The producer's
   next push waits for the slot's release on the ring, not for those reads
   (the pop copied the slot out already; on a2a3 the pop itself released it).
   Nothing here orders GM across cores: a tfree never did on a2a3. */
typedef struct pto__sy_fw {
    const pto_module *m;
    int32_t n;             /* preorder position */
    int32_t *last;         /* per (pipe, core): preorder position of the latest tpop so far, -1 none */
    int32_t *after;        /* per stmt (tfree): the latest tpop before it; its outermost loop's position */
    int32_t *outer;
    int32_t *pos;
} pto__sy_fw;

static int32_t pto__sy_pipe_of(const pto_module *m, int32_t s)
{
    const pto_stmt *st = &m->stmts[s];
    int32_t i = st->arg0 + (st->op == PTO_OP_TPOP ? 1 : 0);
    if (st->nargs < (st->op == PTO_OP_TPOP ? 2 : 1) || m->operands[i].kind != PTO_O_CVPIPE) return -1;
    return m->operands[i].ref >= 0 && m->operands[i].ref < m->n_cvpipes ? m->operands[i].ref : -1;
}

static void pto__sy_fw_walk(pto__sy_fw *w, int32_t b, int32_t loop_pos)
{
    const pto_module *m = w->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        int32_t me = w->n++, q;
        w->pos[s] = me;
        if (st->kind == PTO_ST_OP && (st->op == PTO_OP_TPOP || st->op == PTO_OP_TFREE) &&
            (q = pto__sy_pipe_of(m, s)) >= 0) {
            int32_t *l = &w->last[q * 2 + (st->core == PTO_CORE_CUBE)];
            if (st->op == PTO_OP_TPOP) *l = me;
            else w->after[s] = *l, w->outer[s] = loop_pos;
        }
        if (st->body >= 0)
            pto__sy_fw_walk(w, st->body, loop_pos < 0 && st->kind == PTO_ST_FOR ? me : loop_pos);
        if (st->orelse >= 0) pto__sy_fw_walk(w, st->orelse, loop_pos);
    }
}

/* sy->last_free: 1 for each tfree no tpop of its pipe can follow. Only
   kernels with pipes pay (one walk); on no memory nothing is marked
   (every tfree keeps its flags: the safe side). */
static void pto__sy_find_last_frees(pto__sy *sy)
{
    const pto_module *m = sy->m;
    pto__sy_fw w;
    int32_t s, n = m->n_stmts + 1;
    if (m->n_cvpipes == 0) return;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.last = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * (size_t)(2 * m->n_cvpipes));
    w.after = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * (size_t)n * 3);
    sy->last_free = (uint8_t *)pto__sy_zalloc(sy, (size_t)n);
    if (w.last && w.after && sy->last_free) {
        w.outer = w.after + n;
        w.pos = w.after + 2 * n;
        for (s = 0; s < 2 * m->n_cvpipes; s++) w.last[s] = -1;
        for (s = 0; s < n; s++) w.after[s] = w.outer[s] = w.pos[s] = -1;
        pto__sy_fw_walk(&w, m->kernels[sy->kernel].body, -1);
        for (s = 0; s < m->n_stmts; s++) {
            const pto_stmt *st = &m->stmts[s];
            int32_t q;
            if (w.pos[s] < 0 || st->kind != PTO_ST_OP || st->op != PTO_OP_TFREE || (q = pto__sy_pipe_of(m, s)) < 0)
                continue;
            /* w.last holds the kernel's last tpop per (pipe, core) now */
            if (w.last[q * 2 + (st->core == PTO_CORE_CUBE)] > w.pos[s]) continue;   /* one follows */
            if (w.outer[s] >= 0 && w.after[s] > w.outer[s]) continue;   /* its loop pops again */
            sy->last_free[s] = 1;
        }
    }
    pto_free(sy->ctx, w.last);
    pto_free(sy->ctx, w.after);
}

/* How many records (slots) an access to tile t has. */
static int32_t pto__sy_slots(const pto_tile *t)
{
    return t->nbuf < 1 ? 1 : t->nbuf > PTO_MAX_NBUF ? PTO_MAX_NBUF : t->nbuf;
}

/* The records of op statement s, into room reserved by
   pto__sy_build_records (grown here only if that count was short). */
static pto_status pto__sy_add_records(pto__sy *sy, int32_t s)
{
    pto_module *m = sy->m;
    const pto_opinfo *oi = pto_opinfo_get((pto_op)m->stmts[s].op);
    uint8_t pipe = (uint8_t)pto_stmt_pipe(m, s);
    int i, nargs = m->stmts[s].nargs < 4 ? m->stmts[s].nargs : 4;
    for (i = 0; i < nargs; i++) {
        int32_t o = m->stmts[s].arg0 + i, k, n = 1;
        const pto_operand *op = &m->operands[o];
        const pto_tile *t = NULL;
        uint8_t rw = (uint8_t)(((oi->arg[i] & PTO_A_READ) ? PTO__SY_RD : 0) | ((oi->arg[i] & PTO_A_WRITE) ? PTO__SY_WR : 0));
        int64_t bytes = 0;
        pto__sy_rec *rc;
        if (!rw || (op->kind != PTO_O_TILE && op->kind != PTO_O_GM)) continue;
        if (sy->last_free && sy->last_free[s] && m->stmts[s].op == PTO_OP_TFREE) continue;
        if (op->kind == PTO_O_GM && op->ref >= 0 && op->ref < m->n_params && sy->inert[op->ref]) continue;
        if (op->kind == PTO_O_TILE) {
            if (op->ref < 0 || op->ref >= m->n_tiles) continue;
            t = &m->tiles[op->ref];
            if (!t->planned)
                return pto_error(sy->ctx, op->loc, "sync: tile '%s' is not planned (run the planner first)",
                                 pto_str(sy->ctx, t->name));
            n = pto__sy_slots(t);
            bytes = pto_tile_bytes(t);
            if (t->nbuf > 1 && sy->tile_loop[op->ref] >= 0) {   /* its slot rotates with that loop */
                sy->op_loop[o] = sy->tile_loop[op->ref];
                sy->op_nbuf[o] = (uint8_t)t->nbuf;
            }
        }
        if (!pto__sy_grow(sy, (void **)&sy->recs, sizeof *sy->recs, &sy->cap_recs, sy->n_recs + n)) return PTO_ERR_INTERNAL;
        sy->rec_of[o] = sy->n_recs;
        rc = &sy->recs[sy->n_recs];
        sy->n_recs += n;
        for (k = 0; k < n; k++, rc++) {
            memset(rc, 0, sizeof *rc);   /* padding too */
            rc->stmt = s;
            rc->opnd = o;
            rc->slot = (uint8_t)k;
            rc->pipe = pipe;
            rc->rw = rw;
            rc->space = t ? t->space : (uint8_t)PTO_GM;
            rc->lo = t ? (int32_t)t->offset[k] : 0;
            rc->hi = t ? (int32_t)((t->offset[k] + bytes + PTO__SY_GRAN - 1) / PTO__SY_GRAN * PTO__SY_GRAN) : 0;
        }
    }
    return PTO_OK;
}

static int pto__sy_kernel_op(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    return m->stmts[s].kind == PTO_ST_OP && m->stmts[s].block >= 0 && m->blocks[m->stmts[s].block].kernel == sy->kernel;
}

static void pto__sy_need_table(pto__sy *sy);

/* One look at the kernel's op statements first: a tensor that this kernel
   only reads, or only accesses from one in-order pipe, can never be part
   of a dependency and its accesses get no records (a long kernel stores
   to its outputs thousands of times, all on MTE3); and the records to
   come are counted, so that their array is sized once. */
static pto_status pto__sy_build_records(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t s, t, i;
    size_t nrec = 16;
    uint16_t *pipes;
    int32_t *gm;
    sy->rec_of = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * (size_t)(m->n_operands + 1));
    sy->op_loop = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * (size_t)(m->n_operands + 1));
    sy->op_nbuf = (uint8_t *)pto_alloc(sy->ctx, (size_t)m->n_operands + 1);
    sy->tile_loop = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_tiles + 1));
    sy->inert = (uint8_t *)pto__sy_zalloc(sy, (size_t)m->n_params + 1);
    pipes = (uint16_t *)pto__sy_zalloc(sy, sizeof(uint16_t) * (size_t)(m->n_params + 1));
    gm = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * (size_t)(m->n_params + 1));   /* GM accesses per param */
    if (!sy->rec_of || !sy->op_loop || !sy->op_nbuf || !sy->tile_loop || !sy->inert || !pipes || !gm) {
        pto_free(sy->ctx, pipes);
        pto_free(sy->ctx, gm);
        pto_error(sy->ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
        return PTO_ERR_INTERNAL;
    }
    for (s = 0; s < m->n_operands; s++) sy->rec_of[s] = sy->op_loop[s] = -1;
    sy->n_opnd0 = m->n_operands;
    for (t = 0; t < m->n_tiles; t++) {
        const pto_tile *tl = &m->tiles[t];
        int k;
        sy->tile_loop[t] = (tl->nbuf > 1 && tl->decl >= 0) ? pto_stmt_loop(m, tl->decl) : -1;
        for (k = 0; tl->planned && k < tl->nbuf && k < PTO_MAX_NBUF; k++)   /* records keep 32-bit ranges */
            if (tl->offset[k] < 0 || pto_tile_bytes(tl) < 0 || tl->offset[k] + pto_tile_bytes(tl) > (int64_t)INT32_MAX - PTO__SY_GRAN)
                return pto_error(sy->ctx, tl->decl >= 0 ? m->stmts[tl->decl].loc : *pto__sy_noloc(),
                                 "sync: tile '%s' lies beyond 2 GB", pto_str(sy->ctx, tl->name));
    }
    for (s = 0; s < m->n_stmts; s++) {
        const pto_opinfo *oi;
        int nargs;
        if (!pto__sy_kernel_op(sy, s)) continue;
        if (pto__sy_issync(m->stmts[s].op)) {
            sy->user_flags |= m->stmts[s].op != PTO_OP_PIPE_BARRIER;
            continue;
        }
        oi = pto_opinfo_get((pto_op)m->stmts[s].op);
        nargs = m->stmts[s].nargs < 4 ? m->stmts[s].nargs : 4;
        for (i = 0; i < nargs; i++) {
            const pto_operand *op = &m->operands[m->stmts[s].arg0 + i];
            if (!(oi->arg[i] & (PTO_A_READ | PTO_A_WRITE))) continue;
            if (op->kind == PTO_O_TILE && op->ref >= 0 && op->ref < m->n_tiles)
                nrec += (size_t)pto__sy_slots(&m->tiles[op->ref]);
            if (op->kind != PTO_O_GM) continue;
            if (op->ref < 0 || op->ref >= m->n_params) { nrec++; continue; }
            pipes[op->ref] |= (uint16_t)(1u << pto_stmt_pipe(m, s));
            if (oi->arg[i] & PTO_A_WRITE) pipes[op->ref] |= 0x8000;
            gm[op->ref]++;
        }
    }
    for (i = 0; i < m->n_params; i++) {
        unsigned p = pipes[i] & 0x7fffu;
        sy->inert[i] = !(pipes[i] & 0x8000) || ((p & (p - 1)) == 0 && pto__sy_inorder(pto__sy_lowbit(p)));
        if (!sy->inert[i]) nrec += (size_t)gm[i];
    }
    pto_free(sy->ctx, pipes);
    pto_free(sy->ctx, gm);
    pto__sy_prealloc(sy, (void **)&sy->recs, sizeof *sy->recs, &sy->cap_recs, nrec);
    pto__sy_find_last_frees(sy);
    for (s = 0; s < m->n_stmts; s++) {
        pto_status st;
        int32_t n0 = sy->n_recs;
        if (!pto__sy_kernel_op(sy, s) || pto__sy_issync(m->stmts[s].op)) continue;
        st = pto__sy_add_records(sy, s);
        if (st != PTO_OK) return st;
        sy->nacc += sy->n_recs > n0;
    }
    memset(sy->acc_pipes, 0, sizeof sy->acc_pipes);
    memset(sy->wr_pipes, 0, sizeof sy->wr_pipes);
    for (s = 0; s < sy->n_recs; s++) {
        const pto__sy_rec *rc = &sy->recs[s];
        sy->acc_pipes[rc->space] = (uint8_t)(sy->acc_pipes[rc->space] | (1u << rc->pipe));
        if (rc->rw & PTO__SY_WR) sy->wr_pipes[rc->space] = (uint8_t)(sy->wr_pipes[rc->space] | (1u << rc->pipe));
    }
    pto__sy_need_table(sy);
    /* mark_k is read only where mark_at says it was written */
    /* ... and for the CHECK analysis' id records (pto__sy_id_waited) */
    sy->mark_at = (uint32_t *)pto__sy_zalloc(sy, sizeof(uint32_t) * (size_t)(sy->n_recs + PTO__SY_REAL + 1));
    sy->mark_k = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * (size_t)(sy->n_recs + PTO__SY_REAL + 1));
    return sy->mark_at && sy->mark_k ? PTO_OK : PTO_ERR_INTERNAL;
}

/* The record an operand touches now (its tile's slot in the current phase). */
static int32_t pto__sy_rec_now(const pto__sy *sy, int32_t o)
{
    int32_t r = sy->rec_of[o], L;
    if (r < 0) return -1;
    if ((L = sy->op_loop[o]) >= 0) r += sy->phase[L] % sy->op_nbuf[o];
    return r;
}

/* ---- analysis state ---------------------------------------------------------
   A small unordered array of live records (see pto__sy_touch for why it
   stays small) and up to PTO__SY_NFL (128) event ids set, each a slot
   whose bit in a record's `cap` says the pending set captured it (the
   virtual ids of insertion count: a loop of ten x8 tiles it reuses primes
   80 before the colouring shares them; 64 refused such kernels). Loops
   over slots stop at the last word in use. Copies happen only at loops and
   ifs. */

static int pto__sy_grow_to(pto__sy *sy, void **p, size_t esz, int32_t *cap, int32_t need)
{
    void *q;
    int32_t ncap;
    ncap = *cap * 2 > need ? *cap * 2 : need + 8;
    q = pto_realloc(sy->ctx, *p, (size_t)ncap * esz);
    if (!q) {
        pto_error(sy->ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return 0;
    }
    *p = q;
    *cap = ncap;
    return 1;
}

/* The test inline, the growth not: most calls have room. */
static inline int pto__sy_grow(pto__sy *sy, void **p, size_t esz, int32_t *cap, int32_t need)
{
    return need <= *cap || pto__sy_grow_to(sy, p, esz, cap, need);
}

static int pto__sy_ctz(uint64_t u)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(u);
#else
    int i = 0;
    if (!(u & 0xffffffffu)) { u >>= 32; i += 32; }
    if (!(u & 0xffffu)) { u >>= 16; i += 16; }
    if (!(u & 0xffu)) { u >>= 8; i += 8; }
    while (!(u & 1u)) { u >>= 1; i++; }
    return i;
#endif
}

/* ---- sets of event-id slots ---- */
static const pto__sy_fs pto__sy_fs0 = {{0}};
static inline void pto__sy_fs_add(pto__sy_fs *a, int f) { a->w[f >> 6] |= (uint64_t)1 << (f & 63); }
static inline void pto__sy_fs_del(pto__sy_fs *a, int f) { a->w[f >> 6] &= ~((uint64_t)1 << (f & 63)); }
/* a & b & ~c, and whether it is empty */
static inline int pto__sy_fs_any3(const pto__sy_fs *a, const pto__sy_fs *b, const pto__sy_fs *c)
{
    uint64_t u = 0;
    int i;
    for (i = 0; i < PTO__SY_FW; i++) u |= a->w[i] & b->w[i] & ~c->w[i];
    return u != 0;
}
/* The next slot of a at or after f, or -1 (iteration: for (f = next(a, 0); f >= 0; f = next(a, f + 1))). */
static inline int pto__sy_fs_next(const pto__sy_fs *a, int f)
{
    int i = f >> 6;
    uint64_t u;
    if (f >= PTO__SY_NFL) return -1;
    u = a->w[i] & (~(uint64_t)0 << (f & 63));
    while (!u) {
        if (++i == PTO__SY_FW) return -1;
        u = a->w[i];
    }
    return i * 64 + pto__sy_ctz(u);
}

static void pto__sy_st_free(pto__sy *sy, pto__sy_st *st)
{
    pto_free(sy->ctx, st->e);
    st->e = NULL;
    st->n = st->cap_e = 0;
}

/* States come from a free list: loops and ifs need a few at every visit. */
static pto__sy_st *pto__sy_st_get(pto__sy *sy)
{
    pto__sy_st *st;
    if (sy->nfree > 0) st = sy->freel[--sy->nfree];
    else {
        st = (pto__sy_st *)pto__sy_zalloc(sy, sizeof *st);
        if (!st) return NULL;
    }
    st->reached = 0;
    st->n = 0;
    st->fused = pto__sy_fs0;
    return st;
}

static void pto__sy_st_put(pto__sy *sy, pto__sy_st *st)
{
    if (!st) return;
    if (!pto__sy_grow(sy, (void **)&sy->freel, sizeof(pto__sy_st *), &sy->capfree, sy->nfree + 1)) {
        pto__sy_st_free(sy, st);
        pto_free(sy->ctx, st);
        return;
    }
    sy->freel[sy->nfree++] = st;
}

static void pto__sy_st_copy(pto__sy *sy, pto__sy_st *dst, const pto__sy_st *src)
{
    int f;
    if (dst == src || !pto__sy_grow(sy, (void **)&dst->e, sizeof(pto__sy_e), &dst->cap_e, src->n)) return;
    dst->reached = src->reached;
    dst->n = src->n;
    if (src->n) memcpy(dst->e, src->e, (size_t)src->n * sizeof(pto__sy_e));
    dst->fused = src->fused;
    for (f = pto__sy_fs_next(&src->fused, 0); f >= 0; f = pto__sy_fs_next(&src->fused, f + 1)) {
        dst->fkey[f] = src->fkey[f];   /* only the slots in use are ever read */
        dst->fval[f] = src->fval[f];
    }
}

/* dst = src, taking src's records (src is left empty): a copy without the
   records' memcpy, for a state about to be dropped. */
static void pto__sy_st_move(pto__sy_st *dst, pto__sy_st *src)
{
    pto__sy_e *e = dst->e;
    int32_t cap = dst->cap_e;
    int f;
    dst->e = src->e;
    dst->cap_e = src->cap_e;
    dst->n = src->n;
    dst->reached = src->reached;
    dst->fused = src->fused;
    for (f = pto__sy_fs_next(&src->fused, 0); f >= 0; f = pto__sy_fs_next(&src->fused, f + 1)) {
        dst->fkey[f] = src->fkey[f];
        dst->fval[f] = src->fval[f];
    }
    src->e = e;
    src->cap_e = cap;
    src->n = 0;
}

static pto__sy_st *pto__sy_st_dup(pto__sy *sy, const pto__sy_st *src)
{
    pto__sy_st *st = pto__sy_st_get(sy);
    if (st) pto__sy_st_copy(sy, st, src);
    return st;
}

static int32_t pto__sy_find(const pto__sy_st *st, int32_t rid)
{
    int32_t k;
    for (k = 0; k < st->n; k++)
        if (st->e[k].rid == rid) return k;
    return -1;
}

static int pto__sy_fslot(const pto__sy_st *st, int32_t key)
{
    int i, f;
    uint64_t u;
    for (i = 0; i < PTO__SY_FW; i++)
        for (u = st->fused.w[i]; u; u &= u - 1)
            if (st->fkey[f = i * 64 + pto__sy_ctz(u)] == key) return f;
    return -1;
}

static int pto__sy_ffree(const pto__sy_st *st)
{
    int i;
    for (i = 0; i < PTO__SY_FW; i++)
        if (~st->fused.w[i]) return i * 64 + pto__sy_ctz(~st->fused.w[i]);
    return -1;
}

/* Record entry e now happens before pipe q, since time t (the earliest
   acquisition is kept: a retroactive set asks "before when"). */
static inline void pto__sy_addbit(pto__sy_e *e, int q, uint32_t t)
{
    if (q < 0 || q >= 7) return;
    if (!(e->bits & (1u << q))) {
        e->bits = (uint8_t)(e->bits | (1u << q));
        e->skip = (uint8_t)(e->skip | (1u << q));
        e->hts[q] = t;
    } else if (e->hts[q] > t) {
        e->hts[q] = t;
    }
}

/* pto__sy_addbit at the analysis time (a wait or barrier being analysed):
   no entry's time is later (times only grow within an analysis, and every
   hts is one of them), so only a new bit changes anything. */
static inline void pto__sy_addnow(const pto__sy *sy, pto__sy_e *e, int q)
{
    if ((unsigned)q < 7u && !(e->bits & (1u << q))) {
        e->bits = (uint8_t)(e->bits | (1u << q));
        e->skip = (uint8_t)(e->skip | (1u << q));
        e->hts[q] = sy->now;
    }
}

/* GM window of record b lies inside that of a (same tensor, same start,
   a shape at least as large). */
static int pto__sy_gm_covers(const pto_module *m, const pto__sy_rec *a, const pto__sy_rec *b)
{
    const pto_operand *oa = &m->operands[a->opnd], *ob = &m->operands[b->opnd];
    const pto_tile *ta, *tb;
    int64_t d;
    if (oa->ref != ob->ref) return 0;
    ta = pto__sy_window_tile(m, a->stmt);
    tb = pto__sy_window_tile(m, b->stmt);
    if (!ta || !tb || ta->rows < tb->rows || ta->cols < tb->cols) return 0;
    return pto__sy_const_diff(m, oa->e[0], ob->e[0], &d) && d == 0 && pto__sy_const_diff(m, oa->e[1], ob->e[1], &d)
           && d == 0 && pto__sy_const_diff(m, oa->e[2], ob->e[2], &d) && d == 0;
}

/* A new access a (just issued) supersedes a live record b of its pipe
   whose bytes it covers when it writes or both read: any later access
   that conflicts with b conflicts with a, and whatever orders a (a set or
   barrier on their pipe after a, or a chain starting there) orders b. So
   b can go: the hazard on a is found instead, and ordering it orders b. */
static int pto__sy_dominates(const pto__sy *sy, const pto__sy_rec *a, const pto__sy_e *x)
{
    if (x->pipe != a->pipe || x->space != a->space) return 0;
    if (!(a->rw & PTO__SY_WR) && (x->rw & PTO__SY_WR)) return 0;
    if (a->space != PTO_GM) return a->lo <= x->lo && x->hi <= a->hi;
    return pto__sy_gm_covers(sy->m, a, &sy->recs[x->rid]);
}

/* A local record ordered before every pipe that could conflict with it (a
   writer of its space when it reads, any accessor when it writes; its own
   pipe only when that is V or M) can never be a hazard again: bits only
   grow along a path, and at a join the other path's instance stands. It
   leaves the state when a wait or barrier completes it (pto__sy_keep),
   which keeps loops' states small: most records of earlier loops end up
   ordered before V, MTE2 and MTE3. */
static inline int pto__sy_done(const pto__sy *sy, const pto__sy_e *x)
{
    (void)sy;
    return (x->need & ~(unsigned)x->bits) == 0;
}

/* pto__sy_done's pipes per (space, rw, pipe); GM never (a bit no entry has).
   Each record entry copies its own when it is made (pto__sy_touch). */
static void pto__sy_need_table(pto__sy *sy)
{
    unsigned sp, rw, p, need;
    for (sp = 0; sp < PTO_NSPACE; sp++)
        for (rw = 0; rw < 4; rw++)
            for (p = 0; p < 8; p++) {
                need = (rw & PTO__SY_WR) ? sy->acc_pipes[sp] : sy->wr_pipes[sp];
                if (pto__sy_inorder((int)p) && p < 7) need &= ~(1u << p);
                if (sp == PTO_GM) need = 0x80;
                sy->need[(sp * 4 + rw) * 8 + p] = (uint8_t)need;
                sy->skip0[(sp * 4 + rw) * 8 + p] =
                    (uint8_t)((pto__sy_inorder((int)p) ? 1u << p : 0u) | (rw & PTO__SY_WR ? 0u : PTO__SY_RDONLY));
            }
}

/* After entry k gained bits: it goes if it is done (the last entry fills
   its place); returns the index to look at next. */
static inline int32_t pto__sy_keep(const pto__sy *sy, pto__sy_st *st, int32_t k)
{
    if (!pto__sy_done(sy, &st->e[k])) return k + 1;
    if (k != --st->n) st->e[k] = st->e[st->n];
    return k;
}

/* pto__sy_keep for the loops that keep the count in a local. */
static inline int32_t pto__sy_keep_at(const pto__sy *sy, pto__sy_e *E, int32_t *n, int32_t k)
{
    if (!pto__sy_done(sy, &E[k])) return k + 1;
    if (k != --*n) E[k] = E[*n];
    return k;
}

/* A new instance of record r: issued now, happening before nothing yet;
   the records it supersedes leave the state, which keeps the state the
   size of what is in flight, not of the kernel. */
static void pto__sy_touch(pto__sy *sy, pto__sy_st *st, int32_t r)
{
    const pto__sy_rec *a = &sy->recs[r];
    int32_t alo = a->space == PTO_GM ? INT32_MIN : a->lo, ahi = a->space == PTO_GM ? INT32_MAX : a->hi;
    int apipe = a->pipe, aspace = a->space, ard = !(a->rw & PTO__SY_WR);
    pto__sy_e *e, *x = st->e, *end;
    if (st->n > 0) {   /* (st->e is NULL in a state that never held a record: no NULL + 0) */
        end = x + st->n;
        while (x < end) {   /* unordered: the last entry fills a hole */
            /* same pipe first (r itself is of a's pipe); the range test is
               pto__sy_dominates' own for local bytes */
            if (x->pipe == apipe && x->lo >= alo && x->hi <= ahi
                && (x->rid == r
                    || (x->space == aspace && !(ard && (x->rw & PTO__SY_WR))
                        && (aspace != PTO_GM || pto__sy_dominates(sy, a, x))))) {
                if (x != --end) *x = *end;
            } else {
                x++;
            }
        }
        st->n = (int32_t)(end - st->e);
    }
    if (st->n >= st->cap_e && !pto__sy_grow(sy, (void **)&st->e, sizeof(pto__sy_e), &st->cap_e, st->n + 1)) return;
    e = &st->e[st->n++];
    e->rid = r;
    e->lo = alo;   /* GM: every range test passes on to the window test */
    e->hi = ahi;
    e->pipe = a->pipe;
    e->space = a->space;
    e->rw = a->rw;
    e->bits = 0;
    e->skip = sy->skip0[(a->space * 4u + a->rw) * 8u + a->pipe];
    e->need = sy->need[(a->space * 4u + a->rw) * 8u + a->pipe];
    e->ts = sy->now;
    e->cap = pto__sy_fs0;   /* hts[q] is read only where bit q is set */
}

/* pto__sy_join for src's event-id slot i: the dst slot of the same id
   (map[i], and whether it is the same slot, in same or moved), its value
   on both paths (both: set on both), or a new dst slot "set on some
   paths". Returns whether dst changed. */
static int pto__sy_join_slot(pto__sy_st *dst, const pto__sy_st *src, int i, int *map, pto__sy_fs *same,
                             pto__sy_fs *moved, pto__sy_fs *both)
{
    int j = pto__sy_fslot(dst, src->fkey[i]);
    map[i] = j;
    if (j >= 0) {
        uint8_t v = dst->fval[j] == src->fval[i] ? dst->fval[j] : 2;
        int changed = v != dst->fval[j];
        dst->fval[j] = v;
        pto__sy_fs_add(j == i ? same : moved, i);
        if (v == 1) pto__sy_fs_add(both, j);
        return changed;
    }
    if ((j = pto__sy_ffree(dst)) < 0) return 0;
    pto__sy_fs_add(&dst->fused, j);
    dst->fkey[j] = src->fkey[i];
    dst->fval[j] = 2;
    return 1;
}

/* dst = dst joined with src (paths merging); returns whether dst changed
   (timestamps aside: they only ever grow and decide nothing here). A record
   absent on one path was not accessed there (or was superseded), so the
   other path's knowledge stands; on both, it happens before what it does on
   both, is captured by a set only when captured on both, and counts as
   issued and ordered at the later of the two times. An id set on one path
   only, or with different values, is "set on some paths" (2): a set or
   wait on it is misuse. */
static int pto__sy_join(pto__sy *sy, pto__sy_st *dst, const pto__sy_st *src)
{
    int map[PTO__SY_NFL];
    pto__sy_fs both = pto__sy_fs0, same = pto__sy_fs0, moved = pto__sy_fs0;   /* src slots mapped to the
                                                                            same / another dst slot */
    int32_t i, k, n0;
    int changed = 0, j, w, nw;
    uint64_t u;
    if (!src->reached) return 0;
    if (!dst->reached) { pto__sy_st_copy(sy, dst, src); return 1; }
    for (w = 0; w < PTO__SY_FW; w++)
        for (u = src->fused.w[w]; u; u &= u - 1)
            changed |= pto__sy_join_slot(dst, src, w * 64 + pto__sy_ctz(u), map, &same, &moved, &both);
    for (w = 0; w < PTO__SY_FW; w++)
        for (u = dst->fused.w[w] & ~both.w[w]; u; u &= u - 1) {
            j = w * 64 + pto__sy_ctz(u);
            if (dst->fval[j] != 2 && pto__sy_fslot(src, dst->fkey[j]) < 0) {
                dst->fval[j] = 2;
                changed = 1;
            }
        }
    /* a record's captures are slots in use (a wait clears its bit everywhere):
       the words past the last one in use on either side are zero */
    for (nw = PTO__SY_FW; nw > 1 && !(src->fused.w[nw - 1] | dst->fused.w[nw - 1]); nw--) {}
    n0 = dst->n;
    if (++sy->stamp == 0) {   /* wrapped: clear the marks */
        memset(sy->mark_at, 0, (size_t)(sy->n_recs + PTO__SY_REAL) * sizeof(uint32_t));
        sy->stamp = 1;
    }
    for (k = 0; k < n0; k++) {
        sy->mark_at[dst->e[k].rid] = sy->stamp;
        sy->mark_k[dst->e[k].rid] = k;
    }
    for (i = 0; i < src->n; i++) {
        const pto__sy_e *f = &src->e[i];
        pto__sy_fs mc = pto__sy_fs0;
        int q;
        for (w = 0; w < nw; w++) mc.w[w] = f->cap.w[w] & same.w[w];
        for (w = 0; w < nw; w++)   /* after: a moved slot may land in any word */
            for (u = f->cap.w[w] & moved.w[w]; u; u &= u - 1) {
                q = w * 64 + pto__sy_ctz(u);
                pto__sy_fs_add(&mc, map[q]);
            }
        k = sy->mark_at[f->rid] == sy->stamp ? sy->mark_k[f->rid] : -1;
        if (k < 0) {
            pto__sy_e *e;
            if (!pto__sy_grow(sy, (void **)&dst->e, sizeof(pto__sy_e), &dst->cap_e, dst->n + 1)) return changed;
            e = &dst->e[dst->n++];
            *e = *f;
            e->cap = mc;
            changed = 1;
        } else {
            pto__sy_e *e = &dst->e[k];
            uint8_t nb = (uint8_t)(e->bits & f->bits);
            changed |= nb != e->bits;
            for (w = 0; w < nw; w++) {
                uint64_t nc = e->cap.w[w] & mc.w[w];
                changed |= (nc & both.w[w]) != (e->cap.w[w] & both.w[w]);
                e->cap.w[w] = nc;
            }
            e->bits = nb;
            e->skip = (uint8_t)(e->skip & f->skip);   /* the same record: the same pipe and access */
            if (f->ts > e->ts) e->ts = f->ts;
            for (u = nb; u; u &= u - 1) {
                q = pto__sy_ctz(u);
                if (f->hts[q] > e->hts[q]) e->hts[q] = f->hts[q];
            }
        }
    }
    return changed;
}

/* ---- messages ------------------------------------------------------------------ */

static const char *pto__sy_base(const char *path)
{
    const char *s = path, *p;
    for (p = path; *p; p++)
        if (*p == '/' || *p == '\\') s = p + 1;
    return s;
}

/* Notes are made after the analysis, all at once (pto__sy_notes): their
   lengths are counted first (pto__sy_dep_len), so the string pool grows
   once, then each is written in place at the pool's free end by plain
   copies of known lengths (pto__sy_dep_w), its prime / drain forms right
   after it. A note longer than 599 bytes is cut there: such a note and
   those of messages are built in a pto__sy_txt, whose writes check the
   room. No printf on the way, and strlen only for op and space names. */
#define PTO__SY_NOTEMAX 599
typedef struct pto__sy_txt {
    char d[PTO__SY_NOTEMAX + 1];
    size_t n;
} pto__sy_txt;

static void pto__sy_put(pto__sy_txt *t, const char *s, size_t n)
{
    size_t room = sizeof t->d - 1 - t->n;
    /* two memcpy calls, not one after clamping n: with a literal's constant
       n (PTO__SY_LIT) the first becomes a few moves */
    if (n <= room) {
        memcpy(t->d + t->n, s, n);
        t->n += n;
    } else {
        memcpy(t->d + t->n, s, room);
        t->n += room;
    }
}
#define PTO__SY_LIT(t, lit) pto__sy_put((t), (lit), sizeof(lit) - 1)

/* An interned string's length; 0 for a malformed id from the C API (pto_str's ""). */
static size_t pto__sy_str_len(const pto__sy *sy, int32_t id)
{
    return id < 0 || id >= sy->ctx->n_strs ? 0 : pto__str_len(sy->ctx, id);
}

static void pto__sy_put_str(pto__sy *sy, pto__sy_txt *t, int32_t id)
{
    pto__sy_put(t, pto_str(sy->ctx, id), pto__sy_str_len(sy, id));
}

static void pto__sy_cat(pto__sy_txt *t, const char *s) { pto__sy_put(t, s, strlen(s)); }

/* Digits of v in base 10 or 16, at least `width` (< 24). */
static int pto__sy_ndig(unsigned long long v, unsigned base, int width)
{
    int n = 1;
    if (base == 16) for (v >>= 4; v; v >>= 4) n++;
    else for (v /= 10u; v; v /= 10u) n++;
    return n < width ? (width < 24 ? width : 23) : n;
}

/* v in base 10 or 16 (lower case), at least `width` (< 24) digits at w,
   from the last one; returns the end. */
static char *pto__sy_wnum(char *w, unsigned long long v, unsigned base, int width)
{
    static const char hex[] = "0123456789abcdef";
    int n, i;
    if (base == 16 && width == 4 && v < 0x10000u) {   /* most byte offsets */
        w[0] = hex[v >> 12];
        w[1] = hex[(v >> 8) & 15u];
        w[2] = hex[(v >> 4) & 15u];
        w[3] = hex[v & 15u];
        return w + 4;
    }
    if (base == 10 && width <= 1 && v < 1000000u) {   /* line numbers: two digits at a time */
        static const char d2[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";
        uint32_t x = (uint32_t)v;
        n = x < 10u ? 1 : x < 100u ? 2 : x < 1000u ? 3 : x < 10000u ? 4 : x < 100000u ? 5 : 6;
        for (i = n; x >= 100u; x /= 100u, i -= 2) memcpy(w + i - 2, d2 + 2 * (x % 100u), 2);
        if (x >= 10u) memcpy(w + i - 2, d2 + 2 * x, 2);
        else w[i - 1] = (char)('0' + x);
        return w + n;
    }
    n = pto__sy_ndig(v, base, width);
    if (base == 16)
        for (i = n; i > 0; v >>= 4) w[--i] = hex[v & 15u];
    else
        for (i = n; i > 0; v /= 10u) w[--i] = (char)('0' + v % 10u);
    return w + n;
}

static void pto__sy_num(pto__sy_txt *t, unsigned long long v, unsigned base, int width)
{
    char tmp[24];
    pto__sy_put(t, tmp, (size_t)(pto__sy_wnum(tmp, v, base, width) - tmp));
}

/* Unchecked writes, where the room was counted. */
static inline char *pto__sy_w(char *w, const char *s, size_t n)
{
    memcpy(w, s, n);
    return w + n;
}
#define PTO__SY_WLIT(w, lit) ((w) = pto__sy_w((w), (lit), sizeof(lit) - 1))

/* The base name of the file of statement s (notes name one file, as a rule). */
static void pto__sy_base_of(pto__sy *sy, int32_t s)
{
    if (sy->m->stmts[s].loc.file != sy->base_file || !sy->base_name) {
        sy->base_file = sy->m->stmts[s].loc.file;
        sy->base_name = pto__sy_base(pto_file_name(sy->ctx, sy->base_file));
        sy->base_len = strlen(sy->base_name);
    }
}

/* The name a label gives after the op: its first operand's tile or tensor, or -1. */
static int32_t pto__sy_label_name(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    const pto_operand *o = pto_stmt_arg(m, s, 0);
    if (o && o->kind == PTO_O_TILE && o->ref >= 0) return m->tiles[o->ref].name;
    if (o && o->kind == PTO_O_GM && o->ref >= 0) return m->params[o->ref].name;
    return -1;
}

static unsigned long long pto__sy_line(const pto__sy *sy, int32_t s)
{
    return (unsigned long long)(sy->m->stmts[s].loc.line > 0 ? sy->m->stmts[s].loc.line : 0);
}

/* "tload a (vadd.pto:8)": the op, its first operand, where it is. */
static void pto__sy_label(pto__sy *sy, int32_t s, pto__sy_txt *t)
{
    int32_t name = pto__sy_label_name(sy, s);
    pto__sy_cat(t, pto_opinfo_get((pto_op)sy->m->stmts[s].op)->name);
    if (name != -1) { PTO__SY_LIT(t, " "); pto__sy_put_str(sy, t, name); }
    PTO__SY_LIT(t, " (");
    pto__sy_base_of(sy, s);
    pto__sy_put(t, sy->base_name, sy->base_len);
    PTO__SY_LIT(t, ":");
    pto__sy_num(t, pto__sy_line(sy, s), 10, 0);
    PTO__SY_LIT(t, ")");
}

/* Labels of statements s < n_lab (those of records): lab_len[s] is the
   length + 1 once counted (0 = not yet), and -(length + 1) once the text
   is in the pool at offset lab[s], in the first note that has it; later
   notes copy it from there. */
static size_t pto__sy_oplen(pto__sy *sy, int32_t op)
{
    if (op < 0 || op >= PTO_NOP) return strlen(pto_opinfo_get((pto_op)op)->name);
    if (!sy->oplen[op]) sy->oplen[op] = (uint8_t)strlen(pto_opinfo_get((pto_op)op)->name);
    return sy->oplen[op];
}

static size_t pto__sy_label_len(pto__sy *sy, int32_t s)
{
    int32_t name, op = sy->m->stmts[s].op;
    unsigned long long line;
    size_t n;
    if (sy->lab_len[s]) return (size_t)(sy->lab_len[s] < 0 ? -sy->lab_len[s] : sy->lab_len[s]) - 1;
    name = pto__sy_label_name(sy, s);
    pto__sy_base_of(sy, s);
    line = pto__sy_line(sy, s);
    n = pto__sy_oplen(sy, op) + (name != -1 ? 1 + pto__sy_str_len(sy, name) : 0) + 2 + sy->base_len + 1
        + (line < 10u ? 1 : line < 100u ? 2 : line < 1000u ? 3 : line < 10000u ? 4 : (size_t)pto__sy_ndig(line, 10, 0)) + 1;
    sy->lab_len[s] = (int32_t)n + 1;
    sy->lab[s] = name;   /* until pto__sy_label_w writes the label: its name, looked up once */
    return n;
}

static char *pto__sy_label_w(pto__sy *sy, int32_t s, char *w)
{
    int32_t name, op = sy->m->stmts[s].op;
    if (sy->lab_len[s] < 0) return pto__sy_w(w, sy->ctx->pool + sy->lab[s], (size_t)-sy->lab_len[s] - 1);
    name = sy->lab_len[s] > 0 ? sy->lab[s] : pto__sy_label_name(sy, s);   /* counted: pto__sy_label_len's */
    sy->lab[s] = (int32_t)(w - sy->ctx->pool);
    sy->lab_len[s] = -sy->lab_len[s];
    w = pto__sy_w(w, pto_opinfo_get((pto_op)op)->name, pto__sy_oplen(sy, op));
    if (name != -1) {
        *w++ = ' ';
        w = pto__sy_w(w, pto_str(sy->ctx, name), pto__sy_str_len(sy, name));
    }
    PTO__SY_WLIT(w, " (");
    pto__sy_base_of(sy, s);
    w = pto__sy_w(w, sy->base_name, sy->base_len);
    *w++ = ':';
    w = pto__sy_wnum(w, pto__sy_line(sy, s), 10, 0);
    *w++ = ')';
    return w;
}

/* A dependency's note: "RAW vec[0x0000,0x2000) tload a (vadd.pto:8) ->
   tadd c (vadd.pto:10)" ("-> next" when carried): its length uncut (the
   labels made), the note at w when that length is at most 599, or in t. */
static size_t pto__sy_dep_len(pto__sy *sy, int32_t ra, int32_t rb, int carried)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    size_t n = 3 + 1 + pto__sy_label_len(sy, a->stmt) + (carried ? 9 : 4) + pto__sy_label_len(sy, b->stmt);
    unsigned long long lo = (unsigned long long)(a->lo > b->lo ? a->lo : b->lo);
    unsigned long long hi = (unsigned long long)(a->hi < b->hi ? a->hi : b->hi);
    if (a->space == PTO_GM) return n + 4 + pto__sy_str_len(sy, sy->m->params[sy->m->operands[a->opnd].ref].name);
    return n + 1 + sy->splen[a->space] + 3 + (lo < 0x10000u ? 4 : (size_t)pto__sy_ndig(lo, 16, 4)) + 3
           + (hi < 0x10000u ? 4 : (size_t)pto__sy_ndig(hi, 16, 4)) + 1;
}

static const char *pto__sy_kind3(const pto__sy_rec *a, const pto__sy_rec *b)
{
    return (a->rw & PTO__SY_WR) ? ((b->rw & PTO__SY_RD) ? "RAW" : "WAW") : "WAR";
}

static char *pto__sy_dep_w(pto__sy *sy, int32_t ra, int32_t rb, int carried, char *w)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    w = pto__sy_w(w, pto__sy_kind3(a, b), 3);
    if (a->space == PTO_GM) {
        int32_t name = sy->m->params[sy->m->operands[a->opnd].ref].name;
        PTO__SY_WLIT(w, " gm ");
        w = pto__sy_w(w, pto_str(sy->ctx, name), pto__sy_str_len(sy, name));
    } else {
        *w++ = ' ';
        w = pto__sy_w(w, pto_space_name((pto_space)a->space), sy->splen[a->space]);
        PTO__SY_WLIT(w, "[0x");
        w = pto__sy_wnum(w, (unsigned long long)(a->lo > b->lo ? a->lo : b->lo), 16, 4);
        PTO__SY_WLIT(w, ",0x");
        w = pto__sy_wnum(w, (unsigned long long)(a->hi < b->hi ? a->hi : b->hi), 16, 4);
        *w++ = ')';
    }
    *w++ = ' ';
    w = pto__sy_label_w(sy, a->stmt, w);
    if (carried) PTO__SY_WLIT(w, " -> next ");
    else PTO__SY_WLIT(w, " -> ");
    return pto__sy_label_w(sy, b->stmt, w);
}

static void pto__sy_dep_text(pto__sy *sy, int32_t ra, int32_t rb, int carried, pto__sy_txt *t)
{
    const pto__sy_rec *a = &sy->recs[ra], *b = &sy->recs[rb];
    pto__sy_put(t, pto__sy_kind3(a, b), 3);
    if (a->space == PTO_GM) {
        PTO__SY_LIT(t, " gm ");
        pto__sy_put_str(sy, t, sy->m->params[sy->m->operands[a->opnd].ref].name);
    } else {
        PTO__SY_LIT(t, " ");
        pto__sy_cat(t, pto_space_name((pto_space)a->space));
        PTO__SY_LIT(t, "[0x");
        pto__sy_num(t, (unsigned long long)(a->lo > b->lo ? a->lo : b->lo), 16, 4);
        PTO__SY_LIT(t, ",0x");
        pto__sy_num(t, (unsigned long long)(a->hi < b->hi ? a->hi : b->hi), 16, 4);
        PTO__SY_LIT(t, ")");
    }
    PTO__SY_LIT(t, " ");
    pto__sy_label(sy, a->stmt, t);
    if (carried) PTO__SY_LIT(t, " -> next ");
    else PTO__SY_LIT(t, " -> ");
    pto__sy_label(sy, b->stmt, t);
}

/* A note made on its own (messages, the fallback's): built in a txt and
   added to the pool without the intern table (pto__str_add: it is never
   looked up by its text). */
static int32_t pto__sy_note(pto__sy *sy, const pto__sy_txt *t)
{
    int32_t id = pto__str_add(sy->ctx, t->d, t->n);
    return id < 0 ? 0 : id;
}

static int32_t pto__sy_dep_note(pto__sy *sy, int32_t ra, int32_t rb, int carried)
{
    pto__sy_txt t;
    t.n = 0;
    pto__sy_dep_text(sy, ra, rb, carried, &t);
    return pto__sy_note(sy, &t);
}

static int32_t pto__sy_prefixed(pto__sy *sy, const char *prefix, int32_t note)
{
    pto__sy_txt t;
    t.n = 0;
    pto__sy_cat(&t, prefix);
    pto__sy_put_str(sy, &t, note);
    return pto__sy_note(sy, &t);
}

/* ---- the transfer functions ------------------------------------------------- */

/* A set/wait the analysis cannot follow or that is misused on some path. A
   hand-written one is the user's error; one this pass wrote is an internal
   error. */
/* Whether statement s sits inside a loop (a misused wait there is most
   often one guarded by the loop variable, which the flag states do not
   follow). */
static int pto__sy_in_loop(const pto_module *m, int32_t s)
{
    int32_t steps = 0;
    while (s >= 0 && s < m->n_stmts && steps++ <= m->n_blocks) {
        int32_t b = m->stmts[s].block;
        if (b < 0 || b >= m->n_blocks) return 0;
        s = m->blocks[b].owner;
        if (s >= 0 && s < m->n_stmts && m->stmts[s].kind == PTO_ST_FOR) return 1;
    }
    return 0;
}

static void pto__sy_misuse(pto__sy *sy, int32_t s, const char *what)
{
    pto_module *m = sy->m;
    const pto_operand *a = pto_stmt_arg(m, s, 0), *b = pto_stmt_arg(m, s, 1), *id = pto_stmt_arg(m, s, 2);
    int user = m->stmts[s].origin == PTO_BY_USER;
    pto_buf e;
    memset(&e, 0, sizeof e);
    e.ctx = sy->ctx;
    if (id && id->kind == PTO_O_INT) pto_print_expr(m, id->e[0], &e);
    /* the pass keeps written flags as they are, so an unbalanced pair is the author's to fix */
    pto_error(sy->ctx, m->stmts[s].loc, "sync: %s (%s %s, %s, %s)%s", what, pto_opinfo_get((pto_op)m->stmts[s].op)->name,
              a && a->kind == PTO_O_PIPE ? pto_pipe_name((pto_pipe)a->ref) : "?",
              b && b->kind == PTO_O_PIPE ? pto_pipe_name((pto_pipe)b->ref) : "?", e.data ? e.data : "?",
              !user || strcmp(what, "cannot analyse this event id either") == 0 ? ""
              : strncmp(what, "cannot", 6) == 0
                  ? ": an event id is an integer, or INT + ((i - start) / step) % N with i, start and step those of an "
                    "enclosing loop (i / step or i when it starts at 0), N <= 8"
                  : m->stmts[s].op == PTO_OP_WAIT_FLAG && pto__sy_in_loop(m, s)
                  ? ": written flags are followed path by path, not by loop variable values: a wait_flag in a "
                    "loop needs its id set on every path to it in every iteration (earlier in the iteration, or "
                    "before the loop and later in the body), or its set on its own path (the same if); not so a "
                    "wait under 'if i == 0' of a set before the loop: move that wait before the loop, or drop both"
                  : m->stmts[s].op == PTO_OP_WAIT_FLAG
                  ? ": written flags are kept as written, so every wait_flag needs a set_flag of its id before it in "
                    "program order, on every path (a wait issued before its set may run on a device, but the pass "
                    "does not analyse it: move the set before the wait, add the missing one, or drop both and let "
                    "the pass insert them)"
                  : ": written flags are kept as written, so every set_flag needs its wait_flag on every path "
                    "(add the missing one, or drop both and let the pass insert them)");
    pto_buf_free(&e);
    pto__sy_fail(sy, user ? PTO_ERR_USER : PTO_ERR_INTERNAL);
}

/* Event ids are keyed (src, dst, id) for hardware ids, and by the id alone
   for the virtual ids of insertion rounds (valid only for groups that exist
   and only while inserting). */
static int64_t pto__sy_key(const pto__sy *sy, int p, int q, int64_t id)
{
    if (p < 0 || p >= PTO_PIPE_ALL || q < 0 || q >= PTO_PIPE_ALL) return -1;
    if (id >= PTO__SY_VBASE) return id - PTO__SY_VBASE + PTO__SY_REAL < sy->nkeys ? id - PTO__SY_VBASE + PTO__SY_REAL : -1;
    if (id < 0 || id > 7) return -1;
    return (p * 8 + q) * 8 + id;
}

/* The decoded-id slot of sync statement s, zeroed when first met; NULL
   when out of memory. Placed statements (the many) are numbered from s0 up,
   so their slots start there: the kernel's own statements cost nothing
   unless it has hand-written flags. */
static pto__sy_idc *pto__sy_idc_of(pto__sy *sy, int32_t s)
{
    int32_t i = s - sy->s0;
    if (s < sy->s0) {
        if (!sy->uidc) sy->uidc = (pto__sy_idc *)pto__sy_zalloc(sy, sizeof(pto__sy_idc) * ((size_t)sy->s0 + 1));
        return sy->uidc ? &sy->uidc[s] : NULL;
    }
    if (i >= sy->n_idc) {   /* first met (statements placed later have higher indices) */
        /* one step to the statements pto__sy_reserve made room for (untouched
           until used): doubling to ~300k entries at 100k instructions left its
           copies behind, 385 more pages faulted in */
        if (i >= sy->cap_idc && sy->m->cap_stmts - sy->s0 > i + 1)
            pto__sy_prealloc(sy, (void **)&sy->idc, sizeof(pto__sy_idc), &sy->cap_idc, (size_t)(sy->m->cap_stmts - sy->s0));
        if (!pto__sy_grow(sy, (void **)&sy->idc, sizeof(pto__sy_idc), &sy->cap_idc, i + 1)) return NULL;
        memset(sy->idc + sy->n_idc, 0, sizeof(pto__sy_idc) * (size_t)(i + 1 - sy->n_idc));
        sy->n_idc = i + 1;
    }
    return &sy->idc[i];
}

/* The key of a set/wait in the current phase, or -1. */
static int32_t pto__sy_slot(pto__sy *sy, int32_t s, int *p, int *q)
{
    const pto_module *m = sy->m;
    const pto_operand *a, *b, *c;
    int64_t base, mod, id;
    int32_t L;
    pto__sy_idc *ic;
    if (s >= sy->s0 && s - sy->s0 < sy->n_idc && sy->idc[s - sy->s0].ok == 1) {   /* the many: placed, decoded */
        ic = &sy->idc[s - sy->s0];
        *p = ic->p;
        *q = ic->q;
        id = ic->base + (ic->loop >= 0 ? sy->phase[ic->loop] % ic->mod : 0);
        return (int32_t)pto__sy_key(sy, *p, *q, id);
    }
    ic = pto__sy_idc_of(sy, s);
    if (!ic) return -1;
    if (ic->ok) {   /* decoded on an earlier visit of this analysis */
        if (ic->ok == 2) return -1;
        base = ic->base;
        mod = ic->mod;
        L = ic->loop;
        *p = ic->p;
        *q = ic->q;
    } else {
        int ok;
        a = pto_stmt_arg(m, s, 0), b = pto_stmt_arg(m, s, 1), c = pto_stmt_arg(m, s, 2);
        ok = a && b && c && a->kind == PTO_O_PIPE && b->kind == PTO_O_PIPE && c->kind == PTO_O_INT;
        *p = ok ? a->ref : -1;
        *q = ok ? b->ref : -1;
        ok = ok && *p >= 0 && *p < PTO_PIPE_ALL && *q >= 0 && *q < PTO_PIPE_ALL && *p != *q;
        ok = ok && pto__sy_idform(m, c->e[0], &base, &mod, &L);
        ic->ok = (uint8_t)(ok ? 1 : 2);
        ic->base = ok ? base : 0;
        ic->mod = (uint8_t)(ok ? mod : 1);
        ic->loop = ok ? L : -1;
        ic->p = (uint8_t)(ok ? *p : 0);
        ic->q = (uint8_t)(ok ? *q : 0);
        if (!ok) return -1;
    }
    id = base + (L >= 0 ? sy->phase[L] % mod : 0);
    return (int32_t)pto__sy_key(sy, *p, *q, id);
}

static void pto__sy_barrier(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_operand *a = pto_stmt_arg(sy->m, s, 0);
    int P = a ? a->ref : -1, q;
    int32_t k, n;
    pto__sy_e *E;
    if (P == PTO_PIPE_ALL) {
        for (k = 0; k < st->n;) {
            for (q = 0; q < 7; q++) pto__sy_addnow(sy, &st->e[k], q);
            k = pto__sy_keep(sy, st, k);
        }
        return;
    }
    n = st->n;
    E = st->e;
    for (k = 0; k < n;) {
        if (E[k].pipe != P) { k++; continue; }
        pto__sy_addnow(sy, &E[k], P);
        k = pto__sy_keep_at(sy, E, &n, k);
    }
    st->n = n;
}

/* set_flag on p captures every record of pipe p and every record known to
   happen before p; the wait on q makes them happen before q. A set
   analysed after its place (a prime that pto__sy_rise moved up, replayed
   at its loop's entry) captures only those issued / ordered by time t. */
static void pto__sy_set_op(pto__sy *sy, int32_t s, pto__sy_st *st, uint32_t t);

static void pto__sy_syncop(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    pto__sy_set_op(sy, s, st, UINT32_MAX);
}

/* The CHECK analysis' rule for an id's reuse (hardware.md section 4: a
   binary event). The producer pipe p may run ahead of the consumer q, so a
   set of (p, q, id) is only safe once the wait that consumed the id's
   previous set is known to be past: program order is not enough. A wait
   leaves an id record (rid n_recs + key, on pipe q, in a space no access
   has: it conflicts with nothing and is never done), which flags carry
   like any record; the next set of the key needs it ordered before p, and
   consumes it. The simulator's check is the same rule on vector clocks. */
static void pto__sy_id_waited(pto__sy *sy, pto__sy_st *st, int32_t key, int q, int32_t s)
{
    int32_t k = pto__sy_find(st, sy->n_recs + key);
    pto__sy_e *e;
    if (k < 0) {
        if (st->n >= st->cap_e && !pto__sy_grow(sy, (void **)&st->e, sizeof(pto__sy_e), &st->cap_e, st->n + 1)) return;
        k = st->n++;
    }
    e = &st->e[k];
    memset(e, 0, sizeof *e);
    e->rid = sy->n_recs + key;
    e->lo = key;
    e->hi = s;   /* the wait (pto__sy_collect leaves id records alone) */
    e->pipe = (uint8_t)q;
    e->space = 0xff;
    e->rw = PTO__SY_WR;
    e->skip = 0xff;   /* never a hazard of an access (pto__sy_scan) */
    e->need = (uint8_t)(1u << (key / 64));   /* done (and gone) once ordered before the producer pipe */
    e->ts = sy->now;
}

static void pto__sy_id_reuse(pto__sy *sy, int32_t s, pto__sy_st *st, int32_t key, int p)
{
    int32_t k = pto__sy_find(st, sy->n_recs + key), w;
    pto_module *m = sy->m;
    int ordered;
    if (k < 0) return;
    ordered = (st->e[k].bits & (1u << p)) != 0;
    w = st->e[k].hi;
    if (ordered || sy->collect) {   /* consumed: the next wait leaves a new one */
        if (k != --st->n) st->e[k] = st->e[st->n];
        if (ordered || !pto__sy_grow(sy, (void **)&sy->viol, sizeof(int32_t), &sy->cap_viol, sy->n_viol + 3)) return;
        sy->viol[sy->n_viol++] = s;
        sy->viol[sy->n_viol++] = key;
        sy->viol[sy->n_viol++] = w;
        return;
    }
    pto_error(sy->ctx, m->stmts[s].loc,
              "sync: %sset_flag(%s, %s, %d) may fire before the wait_flag that consumes the id's previous set: "
              "nothing orders that wait (on %s) before this set (on %s), which may run ahead; on a device the "
              "binary event is set twice and a signal is lost (hardware.md section 4)%s",
              m->stmts[s].origin == PTO_BY_USER ? "" : "internal: ", pto_pipe_name((pto_pipe)(key / 64)),
              pto_pipe_name((pto_pipe)(key / 8 % 8)), (int)(key % 8), pto_pipe_name((pto_pipe)(key / 8 % 8)),
              pto_pipe_name((pto_pipe)p),
              m->stmts[s].origin == PTO_BY_USER ? ": use another id, or drop the written flags and let the pass insert them" : "");
    pto__sy_fail(sy, m->stmts[s].origin == PTO_BY_USER ? PTO_ERR_USER : PTO_ERR_INTERNAL);
}

/* Set/wait s has an event id the pass cannot analyse: report it, then every
   other written set/wait of the kernel whose id has no analysable form (the
   pass stops at the first, so the author would otherwise meet them one run
   at a time). */
static void pto__sy_bad_ids(pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    int32_t j;
    int p, q;
    pto__sy_misuse(sy, s, "cannot analyse this event id");
    for (j = 0; j < sy->s0 && j < m->n_stmts; j++)
        if (j != s && pto__sy_kernel_op(sy, j) && m->stmts[j].origin == PTO_BY_USER &&
            (m->stmts[j].op == PTO_OP_SET_FLAG || m->stmts[j].op == PTO_OP_WAIT_FLAG) && pto__sy_slot(sy, j, &p, &q) < 0)
            pto__sy_misuse(sy, j, "cannot analyse this event id either");
}

static void pto__sy_set_op(pto__sy *sy, int32_t s, pto__sy_st *st, uint32_t t)
{
    int p = 0, q = 0, f, fw;
    int32_t key, k, n;
    uint64_t bit;
    uint8_t pbit;
    pto__sy_e *E;
    if (sy->m->stmts[s].op == PTO_OP_PIPE_BARRIER) { pto__sy_barrier(sy, s, st); return; }
    key = pto__sy_slot(sy, s, &p, &q);
    if (key < 0) { pto__sy_bad_ids(sy, s); return; }
    pbit = (uint8_t)(1u << p);   /* p is a queue (pto__sy_key refuses the rest) */
    f = pto__sy_fslot(st, key);
    if (sy->m->stmts[s].op == PTO_OP_SET_FLAG) {
        if (f >= 0) { pto__sy_misuse(sy, s, "event id set while it may still be set"); return; }
        if (key < PTO__SY_REAL) sy->last_set[key] = s + 1;
        if (sy->mode == PTO__SY_CHECK && key < PTO__SY_REAL) {
            pto__sy_id_reuse(sy, s, st, key, p);
            if (sy->stop) return;
        }
        if ((f = pto__sy_ffree(st)) < 0) {
            pto_error(sy->ctx, sy->m->stmts[s].loc,
                      "sync: more than %d event ids would be set at once here (an xN tile a loop reuses keeps N "
                      "ids set before the colouring shares them): give the loop fewer or shallower multi-buffered tiles",
                      PTO__SY_NFL);
            pto__sy_fail(sy, PTO_ERR_USER);
            return;
        }
        fw = f >> 6;
        bit = (uint64_t)1 << (f & 63);
        pto__sy_fs_add(&st->fused, f);
        st->fkey[f] = key;
        st->fval[f] = 1;
        n = st->n;
        E = st->e;
        if (t == UINT32_MAX) {
            for (k = 0; k < n; k++)
                if ((E[k].bits & pbit) || E[k].pipe == p) E[k].cap.w[fw] |= bit;
            return;
        }
        for (k = 0; k < n; k++) {
            pto__sy_e *e = &E[k];
            if ((e->pipe == p && e->ts <= t) || ((e->bits & pbit) && e->hts[p] <= t)) e->cap.w[fw] |= bit;
        }
        return;
    }
    if (f < 0 || st->fval[f] != 1) { pto__sy_misuse(sy, s, "wait on an event id that may not be set"); return; }
    fw = f >> 6;
    bit = (uint64_t)1 << (f & 63);
    n = st->n;
    E = st->e;
    for (k = 0; k < n;) {
        if (!(E[k].cap.w[fw] & bit)) { k++; continue; }
        E[k].cap.w[fw] &= ~bit;
        pto__sy_addnow(sy, &E[k], q);
        k = pto__sy_keep_at(sy, E, &n, k);
    }
    st->n = n;
    pto__sy_fs_del(&st->fused, f);
    if (sy->mode == PTO__SY_CHECK && key < PTO__SY_REAL) pto__sy_id_waited(sy, st, key, q, s);
}

static int pto__sy_is_forward(const pto__sy *sy, int32_t a, int32_t b)
{
    int32_t pa, pb;
    pto__sy_lca(sy, a, b, &pa, &pb);
    return sy->pos[pa] < sy->pos[pb];
}

/* How a dependency reads in a note: RAW before WAR before WAW. */
static int pto__sy_kind_rank(const pto__sy *sy, int32_t ra, int32_t rb)
{
    uint8_t a = sy->recs[ra].rw, b = sy->recs[rb].rw;
    if ((a & PTO__SY_WR) && (b & PTO__SY_RD)) return 2;
    return (a & PTO__SY_WR) ? 0 : 1;
}

static void pto__sy_hazard(pto__sy *sy, int32_t ra, int32_t s, int32_t o, int32_t rb)
{
    int32_t a = sy->recs[ra].stmt;
    int fwd, rank;
    if (sy->mode == PTO__SY_CHECK) {
        int32_t note = pto__sy_dep_note(sy, ra, rb, 0);
        pto_error(sy->ctx, sy->m->stmts[s].loc, "sync: internal: unordered dependency after sync: %s",
                  pto_str(sy->ctx, note));
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return;
    }
    fwd = pto__sy_is_forward(sy, a, s);
    rank = pto__sy_kind_rank(sy, ra, rb);
    if (sy->found) {
        if (sy->h_fwd != fwd) { if (sy->h_fwd > fwd) return; }
        else if (sy->h_apos != sy->pos[a]) { if (sy->h_apos > sy->pos[a]) return; }
        else if (pto__sy_kind_rank(sy, sy->h_rec, sy->h_brec) >= rank) return;
    }
    sy->found = 1;
    sy->h_fwd = fwd;
    sy->h_apos = sy->pos[a];
    sy->h_rec = ra;
    sy->h_bstmt = s;
    sy->h_bopnd = o;
    sy->h_brec = rb;
}

/* ---- superseded records -----------------------------------------------------
   A record that the join of a loop's zero-trip path keeps alive is dropped
   between two top-level statements of a core program (one path: no join
   pending) when a later-placed record a (pos[a] > pos[b]) supersedes it:
   - a covers b's bytes, and a writes or both read: whatever conflicts with
     b conflicts with a;
   - the pipes for which a is not a dependency (those it happens before, and
     its own when that queue is in order) are a subset of b's, and so are the
     pipes whose sets capture it (those it happens before and its own), and
     every pending set that captured a captured b.
   - for each of those pipes, b is captured since no later than a (a set
     placed in the past, pto__sy_apply, that captures a captures b).
   Each transfer function keeps these properties, so whenever b is an
   unordered dependency of a later access, a is one too, and ordering a
   (from its pipe, after it) orders b. A set placed in the past sits at
   top level (it follows the source's ancestor in the lowest common block
   of the source and a later access), where one path holds. */

static uint8_t pto__sy_cov(const pto__sy *sy, int32_t r, uint8_t bits)
{
    int p = sy->recs[r].pipe;
    return (uint8_t)(bits | (pto__sy_inorder(p) ? 1u << p : 0u));
}

/* Since when record entry e (of record r) is captured by a set on pipe p. */
static uint32_t pto__sy_since(const pto__sy_e *e, const pto__sy_rec *r, int p)
{
    uint32_t t = 0xffffffffu;
    if (r->pipe == p) t = e->ts;
    if ((e->bits & (1u << p)) && e->hts[p] < t) t = e->hts[p];
    return t;
}

static int pto__sy_supersedes(const pto__sy *sy, const pto__sy_fs *set1, const pto__sy_e *x, const pto__sy_e *y)
{
    int p;
    const pto__sy_rec *a = &sy->recs[x->rid], *b = &sy->recs[y->rid];
    uint8_t ca = (uint8_t)(x->bits | (1u << a->pipe)), cb = (uint8_t)(y->bits | (1u << b->pipe));
    uint8_t va = pto__sy_cov(sy, x->rid, x->bits), vb = pto__sy_cov(sy, y->rid, y->bits);
    if (a->space != b->space || sy->pos[a->stmt] <= sy->pos[b->stmt]) return 0;
    if (!(a->rw & PTO__SY_WR) && (b->rw & PTO__SY_WR)) return 0;
    if ((ca & ~cb) || (va & ~vb)) return 0;
    if (pto__sy_fs_any3(&x->cap, set1, &y->cap)) return 0;
    for (p = 0; p < 7; p++)
        if ((ca & (1u << p)) && pto__sy_since(y, b, p) > pto__sy_since(x, a, p)) return 0;
    return a->space != PTO_GM ? a->lo <= b->lo && b->hi <= a->hi : pto__sy_gm_covers(sy->m, a, b);
}

/* Drops every superseded record (superseding is transitive and pos grows
   along it, so marking first and dropping after is the same). */
static void pto__sy_collect(pto__sy *sy, pto__sy_st *st)
{
    int32_t ka, kb, w = 0, n = st->n;
    uint8_t *drop;
    pto__sy_fs set1 = pto__sy_fs0;
    int f;
    if (n < 2 || !pto__sy_grow(sy, (void **)&sy->drop, 1, &sy->cap_drop, n)) return;
    drop = sy->drop;
    memset(drop, 0, (size_t)n);
    for (f = pto__sy_fs_next(&st->fused, 0); f >= 0; f = pto__sy_fs_next(&st->fused, f + 1))
        if (st->fval[f] == 1) pto__sy_fs_add(&set1, f);
    for (kb = 0; kb < n; kb++) {
        const pto__sy_e *b = &st->e[kb];
        for (ka = 0; ka < n; ka++) {
            const pto__sy_e *a = &st->e[ka];
            if (!(a->lo <= b->lo && b->hi <= a->hi) || ka == kb || a->space != b->space || a->space == 0xff) continue;
            if (pto__sy_supersedes(sy, &set1, &st->e[ka], &st->e[kb])) { drop[kb] = 1; break; }
        }
    }
    for (kb = 0; kb < n; kb++)
        if (!drop[kb]) st->e[w++] = st->e[kb];
    st->n = w;
}

static pto_status pto__sy_place(pto__sy *sy);
static int pto__sy_seen(pto__sy *sy);
static void pto__sy_counted(pto__sy *sy);

/* The hazard check of statement s: every live record that conflicts with
   one of its accesses and is not ordered before its pipe. */
static int32_t pto__sy_scan(pto__sy *sy, int32_t s, const pto__sy_st *st, int32_t *rs)
{
    const pto_module *m = sy->m;
    int q;
    uint8_t skip;
    int32_t i, o, r, k, n = st->n, nr = 0;   /* n, E: nothing here changes the state */
    int32_t blo, bhi, nargs = m->stmts[s].nargs, arg0 = m->stmts[s].arg0;
    const pto__sy_e *E = st->e;
    for (i = 0; i < nargs; i++) {
        const pto__sy_rec *b;
        o = arg0 + i;
        if ((r = pto__sy_rec_now(sy, o)) < 0) continue;
        b = &sy->recs[r];
        q = b->pipe;   /* the statement's pipe */
        /* ordered before q (an in-order queue orders its own accesses), or
           two reads: one test decides most (5 in 6 on the bench) */
        skip = (uint8_t)((1u << q) | (b->rw & PTO__SY_WR ? 0u : PTO__SY_RDONLY));
        blo = b->space == PTO_GM ? INT32_MIN : b->lo;
        bhi = b->space == PTO_GM ? INT32_MAX : b->hi;
        for (k = 0; k < n; k++) {
            const pto__sy_e *e = &E[k];
            if (e->skip & skip) continue;
            if (e->lo >= bhi || blo >= e->hi || e->space != b->space) continue;
            if (e->space == PTO_GM && !pto__sy_gm_overlap(sy, &sy->recs[e->rid], b)) continue;
            pto__sy_hazard(sy, e->rid, s, o, r);
            if (sy->stop) return nr;
        }
        if (nr < 8) rs[nr++] = r;
    }
    return nr;
}

/* A pair placed where the analysis has already been takes effect in place:
   the set after statement pa (at time t, its latest visit) captured the
   records of pipe p issued by then and those known to happen before p by
   then; the wait before pb (time w) made them happen before q. A record
   issued later is a new instance the pair does not order. Exact for every
   state between pb and here: a record live here with ts <= t is the same
   instance it was at t on every path. */
static void pto__sy_apply(pto__sy *sy, pto__sy_st *st, int p, int q, uint32_t t, uint32_t w)
{
    int32_t k;
    (void)sy;
    for (k = 0; k < st->n; k++) {
        pto__sy_e *e = &st->e[k];
        if ((e->pipe == p && e->ts <= t) || ((e->bits & (1u << p)) && e->hts[p] <= t))
            pto__sy_addbit(e, q, w);
    }
}

/* The effect, on the iteration under analysis, of a carried pair (its
   prime before the loop, its set in earlier iterations) placed while the
   loop was being visited: every record issued before this iteration
   (before time t0) that is of pipe p or ordered before p counts as ordered
   before q since w. That is at least what the exact analysis would know
   (the set captured a subset of those), so a dependency still unordered
   after it is one the exact analysis finds too: the rest of the visit can
   go on looking for the loop's other carried dependencies, and the loop is
   analysed again, exactly, once the visit ends (sy->pend; for barriers
   only, after the loop's next visits: pto__sy_only_barriers). */
static void pto__sy_apply_carried(pto__sy_st *st, int p, int q, uint32_t t0, uint32_t w)
{
    int32_t k;
    for (k = 0; k < st->n; k++) {
        pto__sy_e *e = &st->e[k];
        if (e->ts < t0 && (e->pipe == p || (e->bits & (1u << p)))) pto__sy_addbit(e, q, w);
    }
}

static int32_t pto__sy_frame_of(const pto__sy *sy, int32_t stmt)
{
    int32_t i;
    for (i = 0; i < sy->nfr; i++)
        if (sy->fr[i].stmt == stmt) return i;
    return -1;
}

/* A loop's exits (sv[nsv - 1]) are the join of its visits' results in
   visit order; pto__sy_fixpoint joins each one visit late (f->later), so a
   round that ends in a re-analysis from the entry (every carried pair's)
   joins none, and the first is moved in, not copied. The pending one is
   joined before any pair is applied to the loop's states in place, which
   keeps every state as it was when each was joined at once. */
static void pto__sy_fold(pto__sy *sy, pto__sy_fr *f)
{
    pto__sy_st *t;
    if (!f->later_on) return;
    f->later_on = 0;
    if (!f->later->reached) return;   /* as pto__sy_join: nothing */
    if (f->sv[f->nsv - 1]->reached) { pto__sy_join(sy, f->sv[f->nsv - 1], f->later); return; }
    t = f->sv[f->nsv - 1];
    f->sv[f->nsv - 1] = f->later;
    f->later = t;
}

/* Where the dependency just ordered can take effect in place: every loop
   around the block that holds both ends (for a carried one: the loop that
   carries it, and those around it) must be in its first visit, or its
   heads, computed without the pair, would be too pessimistic. Returns the
   outermost loop to analyse again, or -1. */
static int32_t pto__sy_restart_target(pto__sy *sy, const pto__sy_grp *gr, int32_t pb)
{
    int32_t lim = gr->kind == PTO__SY_LOOP || !sy->h_fwd ? -1 : pto__sy_frame_of(sy, pb), i;
    if (!sy->h_fwd) {
        int32_t L = gr->kind == PTO__SY_LOOP ? gr->anchor : pto_stmt_loop(sy->m, pb);
        lim = pto__sy_frame_of(sy, L) + 1;
        for (i = 0; i < lim; i++)
            if (sy->fr[i].loop && !sy->fr[i].fresh) return sy->fr[i].stmt;
        return L;
    }
    if (lim < 0) lim = sy->nfr;
    for (i = 0; i < lim; i++)
        if (sy->fr[i].loop && !sy->fr[i].fresh) return sy->fr[i].stmt;
    return -1;
}

static int pto__sy_log(pto__sy *sy, pto__sy_fr *f, int32_t g, int32_t stmt, uint32_t t, uint32_t w)
{
    pto__sy_lg *l;
    if (!pto__sy_grow(sy, (void **)&f->lg, sizeof(pto__sy_lg), &f->cap_lg, f->nlg + 1)) return 0;
    l = &f->lg[f->nlg++];
    l->grp = g;
    l->stmt = stmt;
    l->p = sy->grps[g].src;
    l->q = sy->grps[g].dst;
    l->t = t;
    l->w = w;
    return 1;
}

/* A carried group just placed (gr, for the dependency found at the
   current statement, whose wait precedes pb) would make loop `target`
   stale: instead of analysing target again at once, its effect on this
   iteration is taken optimistically (pto__sy_apply_carried) and target is
   analysed again when its body visit ends, so one visit finds all of a
   loop's carried dependencies. Returns 0 when that cannot be done (a
   rotation that changes the loop's period, or a dependency the optimistic
   effect does not order): then target is analysed again at once. */
static int pto__sy_defer(pto__sy *sy, pto__sy_st *st, const pto__sy_grp *gr, int32_t target, int32_t pb,
                         int32_t period0)
{
    int32_t L = pto_stmt_loop(sy->m, pb), fl = pto__sy_frame_of(sy, L), i, j, k;
    uint32_t w = pb < sy->n_tt ? sy->tstart[pb] : sy->now, t0;
    /* only when the loop to analyse again is the one that carries the pair:
       the rest of this visit then meets no wait of a deferred group (each
       sits before its pb, already passed) and no loop analysed further */
    if (sy->mode != PTO__SY_FIND || fl < 0 || L < 0 || target != L || sy->period[L] != period0) return 0;
    t0 = sy->fr[fl].vstart;
    pto__sy_apply_carried(st, gr->src, gr->dst, t0, w);
    if (gr->kind == PTO__SY_BAR) pto__sy_apply(sy, st, gr->src, gr->dst, w, w);
    k = pto__sy_find(st, sy->h_rec);
    if (k < 0 || !(st->e[k].bits & (1u << gr->dst))) return 0;
    for (i = fl + 1; i < sy->nfr; i++) {
        pto__sy_fold(sy, &sy->fr[i]);
        for (j = 0; j < sy->fr[i].nsv; j++)
            if (sy->fr[i].sv[j]) {
                pto__sy_apply_carried(sy->fr[i].sv[j], gr->src, gr->dst, t0, w);
                if (gr->kind == PTO__SY_BAR) pto__sy_apply(sy, sy->fr[i].sv[j], gr->src, gr->dst, w, w);
            }
        if (sy->fr[i].loop) {
            if (!pto__sy_log(sy, &sy->fr[i], sy->n_grps - 1, -2, t0, w)) return 0;
            if (gr->kind == PTO__SY_BAR && !pto__sy_log(sy, &sy->fr[i], sy->n_grps - 1, -1, w, w)) return 0;
        }
    }
    if (!pto__sy_grow(sy, (void **)&sy->pendg, sizeof(int32_t), &sy->cap_pendg, sy->npendg + 1)) return 0;
    sy->pendg[sy->npendg++] = sy->n_grps - 1;
    if (sy->pend < 0 || pto__sy_frame_of(sy, target) < pto__sy_frame_of(sy, sy->pend)) sy->pend = target;
    return 1;
}

/* Orders the dependency found at s: places the group, then either applies
   it to the states in place (pto__sy_apply) and returns 1, or asks for the
   loop it makes stale to be analysed again and returns 0. */
static int pto__sy_resolve(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    int32_t a = sy->recs[sy->h_rec].stmt, pa, pb, target, fi, i, j;
    const pto__sy_grp *gr;
    uint32_t t, w;
    int32_t period0;
    if (pto__sy_seen(sy)) {
        pto_error(sy->ctx, m->stmts[sy->h_bstmt].loc, "sync: internal: could not order %s",
                  pto_str(sy->ctx, pto__sy_dep_note(sy, sy->h_rec, sy->h_brec, !sy->h_fwd)));
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
        return 0;
    }
    pto__sy_lca(sy, a, s, &pa, &pb);
    if (!sy->h_fwd) {
        int32_t L = pto_stmt_loop(m, pa);
        if (L >= 0) pb = pto__sy_in_block(m, s, m->stmts[L].body);
    }
    period0 = !sy->h_fwd && pto_stmt_loop(m, pa) >= 0 ? sy->period[pto_stmt_loop(m, pa)] : 0;
    if (pto__sy_place(sy) != PTO_OK) { pto__sy_fail(sy, PTO_ERR_INTERNAL); return 0; }
    pto__sy_counted(sy);
    sy->grps[sy->n_grps - 1].ne = (uint16_t)(sy->n_ents - sy->grps[sy->n_grps - 1].e0);
    if (sy->h_fwd) sy->grps[sy->n_grps - 1].pb = pb;
    gr = &sy->grps[sy->n_grps - 1];
    target = pto__sy_restart_target(sy, gr, pb);
    sy->found = 0;
    if (target >= 0 && !sy->h_fwd && pto__sy_defer(sy, st, gr, target, pb, period0)) return 1;
    if (target >= 0) {
        if (sy->pend >= 0 && pto__sy_frame_of(sy, sy->pend) < pto__sy_frame_of(sy, target)) target = sy->pend;
        sy->pend = -1;
        sy->restart = target;
        sy->restart_grp = sy->n_grps - 1;
        return 0;
    }
    w = pb < sy->n_tt ? sy->tstart[pb] : sy->now;
    t = gr->kind == PTO__SY_BAR ? w : pa < sy->n_tt ? sy->tend[pa] : w;
    fi = pto__sy_frame_of(sy, pb);
    pto__sy_apply(sy, st, gr->src, gr->dst, t, w);
    for (i = fi < 0 ? sy->nfr : fi; i < sy->nfr; i++) {
        pto__sy_fold(sy, &sy->fr[i]);
        for (j = 0; j < sy->fr[i].nsv; j++)
            if (sy->fr[i].sv[j]) pto__sy_apply(sy, sy->fr[i].sv[j], gr->src, gr->dst, t, w);
        if (sy->fr[i].loop && !pto__sy_log(sy, &sy->fr[i], sy->n_grps - 1, -1, t, w)) return 0;
    }
    return 1;
}

static void pto__sy_access(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    int32_t i, rs[8], nr;
    for (;;) {
        sy->found = 0;
        nr = pto__sy_scan(sy, s, st, rs);
        if (sy->stop) return;
        if (!sy->found) break;
        if (!pto__sy_resolve(sy, s, st)) return;
    }
    for (i = 0; i < nr; i++) pto__sy_touch(sy, st, rs[i]);
}

static void pto__sy_block(pto__sy *sy, int32_t b, pto__sy_st *st);

static int pto__sy_halted(const pto__sy *sy) { return sy->stop || sy->restart >= 0; }

static pto__sy_fr *pto__sy_push(pto__sy *sy, int32_t s, int loop, pto__sy_st **sv, int32_t nsv)
{
    pto__sy_fr *f;
    if (!pto__sy_grow(sy, (void **)&sy->fr, sizeof(pto__sy_fr), &sy->cap_fr, sy->nfr + 1)) return NULL;
    f = &sy->fr[sy->nfr++];
    f->stmt = s;
    f->loop = loop;
    f->fresh = 1;
    f->sv = sv;
    f->nsv = nsv;
    f->g0 = sy->n_grps;
    f->lg = NULL;
    f->nlg = f->cap_lg = 0;
    f->later = NULL;
    f->later_on = 0;
    return f;
}

static void pto__sy_unseen(pto__sy *sy, int32_t rec, int32_t opnd);
static int pto__sy_placed_again(const pto__sy *sy, int32_t g);
#define PTO__SY_REPLACE 3
static void pto__sy_unlink_ent(pto__sy *sy, int32_t e);

/* A forward group whose wait sits right before loop L, placed during this
   visit of L, may be implied by what made L stale (typically a carried
   group whose prime, just before L, orders the same records through a
   chain of flags): it goes, and the new analysis of L places it again if
   it is needed after all. This is the one redundancy a single pass meets
   (what a group placed later orders earlier is its prime's part). */
static void pto__sy_drop_group(pto__sy *sy, int32_t g)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) pto__sy_unlink_ent(sy, e);
    pto__sy_unseen(sy, gr->arec, gr->bopnd);
    if (gr->kind == PTO__SY_BAR) sy->stats.barriers--;
    else {
        sy->stats.flag_pairs--;
        if (gr->nids > 1) sy->stats.rotating--;
    }
    gr->kind = PTO__SY_DEAD;
}

/* A forward group placed during this visit of L whose wait sits right
   before L, or before a loop inside L (a carried pair of that inner loop,
   its primes moved out to L by pto__sy_anchor, now precedes it too), may
   be implied by what made L stale: it goes, and is placed again if the
   new analysis still needs it. */
static int pto__sy_droppable(const pto__sy *sy, int32_t pb, int32_t L)
{
    if (pb == L) return 1;
    if (pb < 0 || sy->m->stmts[pb].kind != PTO_ST_FOR) return 0;
    while ((pb = pto__sy_up(sy->m, pb)) >= 0)
        if (pb == L) return 1;
    return 0;
}

/* Prime statement s of group g, analysed at its loop's entry: a prime
   that pto__sy_rise moved up its block captures as of its place, the
   analysis time before the statement it precedes (that statement's latest
   visit is this one: it is in the block being analysed, before L). */
static void pto__sy_prime_op(pto__sy *sy, int32_t g, int32_t s, pto__sy_st *st)
{
    const pto__sy_grp *gr = &sy->grps[g];
    if (gr->pbefore == gr->anchor || gr->pbefore >= sy->n_tt) pto__sy_syncop(sy, s, st);
    else pto__sy_set_op(sy, s, st, sy->tstart[gr->pbefore] - 1);
}

/* L's entry again: as it was when the analysis reached L, with the changes
   the groups still there made to it, in order, then the primes of the
   group that made L stale (they are the last statements before L). */
static void pto__sy_reenter(pto__sy *sy, int32_t fi, pto__sy_st *st, const pto__sy_st *entry0)
{
    int32_t g, i, w = 0, e, L = sy->fr[fi].stmt;
    for (g = sy->fr[fi].g0; g < sy->n_grps; g++)
        if (pto__sy_droppable(sy, sy->grps[g].pb, L) && sy->grps[g].kind != PTO__SY_DEAD && g != sy->restart_grp &&
            !pto__sy_placed_again(sy, g))
            pto__sy_drop_group(sy, g);
    pto__sy_st_copy(sy, st, entry0);
    for (i = 0; i < sy->fr[fi].nlg; i++) {
        pto__sy_lg l = sy->fr[fi].lg[i];
        if (sy->grps[l.grp].kind == PTO__SY_DEAD) continue;
        sy->fr[fi].lg[w++] = l;
        if (l.stmt >= 0) pto__sy_prime_op(sy, l.grp, l.stmt, st);
        else if (l.stmt == -2) pto__sy_apply_carried(st, l.p, l.q, l.t, l.w);
        else pto__sy_apply(sy, st, l.p, l.q, l.t, l.w);
    }
    sy->fr[fi].nlg = w;
    /* the groups that asked, in the order they were placed (so are their
       primes: each new one goes right before L) */
    for (i = 0; i <= sy->npendg && !sy->stop; i++) {
        g = i < sy->npendg ? sy->pendg[i] : sy->restart_grp;
        if (g < 0 || sy->grps[g].kind != PTO__SY_LOOP || sy->grps[g].anchor != L) continue;
        for (e = sy->grps[g].e0; e < sy->grps[g].e0 + sy->grps[g].ne && !sy->stop; e++) {
            if (sy->ents[e].role != PTO__SY_PRIME || sy->ents[e].stmt < 0) continue;
            pto__sy_prime_op(sy, g, sy->ents[e].stmt, st);
            if (!pto__sy_log(sy, &sy->fr[fi], g, sy->ents[e].stmt, 0, 0)) return;
        }
    }
    sy->npendg = 0;
}

/* The groups deferred so far are all barriers (no event id whose set a
   later visit would miss). */
static int pto__sy_only_barriers(const pto__sy *sy)
{
    int32_t i;
    for (i = 0; i < sy->npendg; i++)
        if (sy->grps[sy->pendg[i]].kind != PTO__SY_BAR) return 0;
    return 1;
}

/* Chaotic iteration over the phases (iteration index mod the period): a
   phase is analysed again only when its head changed since its last visit
   (the same fixpoint, and the same dependencies found, as full rounds).
   heads[P] is the entry (st), heads[P + 1] the exits when the loop runs at
   least once (else NULL). */
static int pto__sy_fixpoint(pto__sy *sy, int32_t L, int32_t fi, pto__sy_st *st, pto__sy_st **heads, int32_t P)
{
    pto__sy_st *work = pto__sy_st_get(sy), *t;
    uint8_t dbuf[64], *dirty = P <= 64 ? dbuf : (uint8_t *)pto__sy_zalloc(sy, (size_t)P);
    int32_t ph = 0, visits = 0, left = 1, exits = heads[P + 1] != NULL;
    pto__sy_fr *f = &sy->fr[fi];
    f->later = exits ? pto__sy_st_get(sy) : NULL;
    if (!work || !dirty || (exits && !f->later)) {
        pto__sy_st_put(sy, work);
        pto__sy_st_put(sy, f->later);
        f->later = NULL;
        if (dirty != dbuf) pto_free(sy->ctx, dirty);
        return 0;
    }
    if (dirty == dbuf) memset(dbuf, 0, (size_t)P);
    heads[P] = st;
    f->sv = heads;
    f->nsv = exits ? P + 2 : P + 1;
    f->later_on = 0;
    pto__sy_st_copy(sy, heads[0], st);
    dirty[0] = 1;
    while (left > 0 && !pto__sy_halted(sy)) {
        if (dirty[ph]) {
            dirty[ph] = 0;
            left--;
            if (++visits > PTO__SY_MAXPASS * P) {
                pto_error(sy->ctx, sy->m->stmts[L].loc, "sync: internal: the analysis of this loop did not converge");
                pto__sy_fail(sy, PTO_ERR_INTERNAL);
                break;
            }
#ifdef PTO__SY_VISITS
            sy->visits[sy->mode]++;
#endif
            sy->phase[L] = ph;
            f = &sy->fr[fi];   /* (sy->fr may move while the body is analysed) */
            f->fresh = visits == 1;
            pto__sy_st_copy(sy, work, heads[ph]);
            f->vstart = sy->now;
            pto__sy_block(sy, sy->m->stmts[L].body, work);
            f = &sy->fr[fi];
            /* pto__sy_defer. Barriers only: not before visit P + 1, the
               first from a back edge, whose carried flag pairs then share
               the same re-analysis (top comment, 3.) */
            if (sy->pend == L && !pto__sy_halted(sy) && (visits > P || !pto__sy_only_barriers(sy))) {
                sy->pend = -1;
                sy->restart = L;
                sy->restart_grp = -1;
            }
            if (pto__sy_halted(sy)) break;
            /* the back edges joined: the loop's exit when it runs at least
               once (the previous visit's now, this one's later: pto__sy_fold) */
            if (exits) {
                pto__sy_fold(sy, f);
                t = f->later;
                f->later = work;
                f->later_on = 1;
                work = t;
            }
            if (pto__sy_join(sy, heads[(ph + 1) % P], f->later_on ? f->later : work) && !dirty[(ph + 1) % P]) {
                dirty[(ph + 1) % P] = 1;
                left++;
            }
        }
        ph = (ph + 1) % P;
    }
    f = &sy->fr[fi];
    if (sy->pend == L && !pto__sy_halted(sy)) {   /* converged before a deferred barrier's restart */
        sy->pend = -1;
        sy->restart = L;
        sy->restart_grp = -1;
    }
    if (!pto__sy_halted(sy)) pto__sy_fold(sy, f);
    f->later_on = 0;
    f->sv = NULL;
    f->nsv = 0;
    pto__sy_st_put(sy, work);
    pto__sy_st_put(sy, f->later);
    f->later = NULL;
    if (dirty != dbuf) pto_free(sy->ctx, dirty);
    sy->phase[L] = 0;
    return 1;
}

/* The trip count of loop L when its start, end and step are literals
   (a positive step), else -1. */
static int64_t pto__sy_const_trips(const pto_module *m, int32_t L)
{
    const pto_stmt *f = &m->stmts[L];
    int64_t a, b, c = 1;
    uint64_t d;
    if (f->e[0] < 0 || f->e[1] < 0 || m->exprs[f->e[0]].kind != PTO_E_INT || m->exprs[f->e[1]].kind != PTO_E_INT) return -1;
    if (f->e[2] >= 0 && (m->exprs[f->e[2]].kind != PTO_E_INT || (c = m->exprs[f->e[2]].value) < 1)) return -1;
    a = m->exprs[f->e[0]].value;
    b = m->exprs[f->e[1]].value;
    if (b <= a) return 0;
    d = (uint64_t)b - (uint64_t)a;   /* b - a, which int64 cannot hold across its whole range */
    d = d / (uint64_t)c + (d % (uint64_t)c != 0);
    return d > (uint64_t)INT64_MAX ? -1 : (int64_t)d;
}

/* A loop of T literal iterations, 1 <= T <= its period: no slot and no
   rotating id comes round again inside one run of it, so the fixpoint's
   "any number of iterations" would only add carried dependencies that
   cannot happen (a K loop of 2 steps over x2 tiles got a primed, rotating
   pair that never ordered anything). Its T iterations are analysed in
   order instead, each at its own phase, and the state after the last is
   the loop's exit: exact, and no more visits than the fixpoint's. A pair
   placed after the first iteration makes it stale (fresh is 0) and it is
   analysed again from its entry, as in the fixpoint. */
static void pto__sy_unrolled(pto__sy *sy, int32_t L, int32_t fi, pto__sy_st *st, int64_t T, int32_t P)
{
    int64_t it;
    sy->fr[fi].sv = NULL;
    sy->fr[fi].nsv = 0;
    for (it = 0; it < T && !pto__sy_halted(sy); it++) {
        sy->phase[L] = (int32_t)(it % P);
        sy->fr[fi].fresh = it == 0;
        sy->fr[fi].vstart = sy->now;
#ifdef PTO__SY_VISITS
        sy->visits[sy->mode]++;
#endif
        pto__sy_block(sy, sy->m->stmts[L].body, st);
        if (sy->pend == L && !pto__sy_halted(sy)) {   /* pto__sy_defer: analyse again, exactly */
            sy->pend = -1;
            sy->restart = L;
            sy->restart_grp = -1;
        }
    }
    sy->phase[L] = 0;
}

/* One analysis of loop L that may exit at the head of any iteration: the
   fixpoint over its P phase heads, then st = its entry joined with every
   head; or, when L surely runs once (at_least_once: literal trips >= 1),
   st = its back edges joined (the exit after one iteration or more: the
   colouring counts the flags inside such a loop as run, pto__sy_surely_runs,
   and this analysis must agree). 0 when out of memory. */
static int pto__sy_any_trips(pto__sy *sy, int32_t L, int32_t fi, pto__sy_st *st, int32_t P, int at_least_once)
{
    pto__sy_st *hbuf[16];   /* (most periods are 1 or 2) */
    pto__sy_st **heads = P + 2 <= 16 ? hbuf : (pto__sy_st **)pto__sy_zalloc(sy, sizeof(pto__sy_st *) * (size_t)(P + 2));
    int ok = heads != NULL;
    int32_t ph;
    if (heads == hbuf) memset(hbuf, 0, sizeof hbuf);
    for (ph = 0; ok && ph < P; ph++) ok = (heads[ph] = pto__sy_st_get(sy)) != NULL;
    if (ok && at_least_once) ok = (heads[P + 1] = pto__sy_st_get(sy)) != NULL;
    if (ok) ok = pto__sy_fixpoint(sy, L, fi, st, heads, P);
    if (ok && !pto__sy_halted(sy)) {
        if (at_least_once) pto__sy_st_move(st, heads[P + 1]);
        else
            for (ph = 0; ph < P; ph++) pto__sy_join(sy, st, heads[ph]);
    }
    for (ph = 0; heads && ph < P; ph++) pto__sy_st_put(sy, heads[ph]);
    if (heads && heads[P + 1]) pto__sy_st_put(sy, heads[P + 1]);
    if (heads != hbuf) pto_free(sy->ctx, heads);
    return ok;
}

/* The loop may exit at the head of any iteration, zero included (unless
   its trip count is a literal no larger than its period: pto__sy_unrolled).
   When a pair placed inside makes it stale (pto__sy_restart_target), it is
   analysed again from its entry. */
static void pto__sy_loop(pto__sy *sy, int32_t L, pto__sy_st *st)
{
    pto__sy_st *entry0 = pto__sy_st_dup(sy, st);
    int32_t fi;
    if (!entry0 || !pto__sy_push(sy, L, 1, NULL, 0)) { pto__sy_st_put(sy, entry0); return; }
    fi = sy->nfr - 1;
    for (;;) {
        int32_t P = sy->period[L];
        int64_t T = pto__sy_const_trips(sy->m, L);
        int ok = 1;
        if (T >= 1 && T <= P) pto__sy_unrolled(sy, L, fi, st, T, P);
        else ok = pto__sy_any_trips(sy, L, fi, st, P, T >= 1);
        if (!ok || sy->stop || sy->restart != L) break;
        sy->restart = -1;
        pto__sy_reenter(sy, fi, st, entry0);
        sy->restart_grp = -1;
    }
    pto_free(sy->ctx, sy->fr[fi].lg);
    sy->nfr = fi;
    pto__sy_st_put(sy, entry0);
}

/* Block b holds (at any depth) a sync op written by hand. */
static int pto__sy_written_sync(const pto_module *m, int32_t b)
{
    int32_t s;
    if (b < 0) return 0;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        if (x->kind == PTO_ST_OP && x->origin == PTO_BY_USER && pto__sy_issync(x->op)) return 1;
        if ((x->kind == PTO_ST_FOR || x->kind == PTO_ST_IF)
            && (pto__sy_written_sync(m, x->body) || pto__sy_written_sync(m, x->orelse))) return 1;
    }
    return 0;
}

/* The if s is `VAR == START` (either way round) with VAR the variable of an
   enclosing loop L and START L's lower bound: its then-branch runs only on
   L's first trip (the step is positive, so VAR never comes back to START).
   Returns 1 when the analysis is in a later visit of L's body (not the
   first one from L's entry): the then-branch cannot run there, and taking
   it would carry L's back edge into it (a dependency on an earlier trip
   that no earlier trip has: a waited flag every trip for nothing). */
static int pto__sy_first_trip_only(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    const pto_stmt *x = &m->stmts[s];
    int32_t i, side;
    /* a flag written by hand under it: both paths, as before (the CHECK
       analysis follows written flags path by path, and its advice for them
       says so) */
    if (x->cmp != PTO_EQ || pto__sy_written_sync(m, x->body)) return 0;
    for (side = 0; side < 2; side++) {
        int32_t v = x->e[side], o = x->e[1 - side];
        if (v < 0 || o < 0 || m->exprs[v].kind != PTO_E_VAR) continue;
        for (i = sy->nfr - 1; i >= 0; i--) {
            const pto_stmt *f;
            if (!sy->fr[i].loop) continue;
            f = &m->stmts[sy->fr[i].stmt];
            if (f->ref != m->exprs[v].a) continue;
            if (pto__expr_same(m, f->e[0], o) && !sy->fr[i].fresh) return 1;
            break;
        }
    }
    return 0;
}

/* An if: both paths joined, or its else path alone where its then-branch
   cannot run (pto__sy_first_trip_only). */
static void pto__sy_if(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    pto__sy_st *sv[2];
    int later = pto__sy_first_trip_only(sy, s);
    sv[0] = st;
    sv[1] = pto__sy_st_dup(sy, st);
    if (!sv[1] || !pto__sy_push(sy, s, 0, sv, 2)) { pto__sy_st_put(sy, sv[1]); return; }
    if (!later) pto__sy_block(sy, sy->m->stmts[s].body, st);
    if (!pto__sy_halted(sy) && sy->m->stmts[s].orelse >= 0) pto__sy_block(sy, sy->m->stmts[s].orelse, sv[1]);
    sy->nfr--;
    if (!pto__sy_halted(sy)) {
        if (later) pto__sy_st_copy(sy, st, sv[1]);
        else pto__sy_join(sy, st, sv[1]);
    }
    pto__sy_st_put(sy, sv[1]);
}

static void pto__sy_stmt(pto__sy *sy, int32_t s, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    ++sy->now;
    if (s < sy->n_tt) sy->tstart[s] = sy->now;
    switch (m->stmts[s].kind) {
    case PTO_ST_OP:
        if (pto__sy_issync(m->stmts[s].op)) pto__sy_syncop(sy, s, st);
        else pto__sy_access(sy, s, st);
        break;
    case PTO_ST_FOR: pto__sy_loop(sy, s, st); break;
    case PTO_ST_IF: pto__sy_if(sy, s, st); break;
    default: break;   /* tiles, lets; a SECTION is its own core program */
    }
    ++sy->now;
    if (s < sy->n_tt) sy->tend[s] = sy->now;
}

/* pto__sy_stmt for an op, inline: nine in ten statements a loop body's
   visits meet are ops, and the call with pto__sy_stmt's frame cost more
   than their own work in many cases. */
static inline void pto__sy_op(pto__sy *sy, int32_t s, pto__sy_st *st, int sync)
{
    ++sy->now;
    if (s < sy->n_tt) sy->tstart[s] = sy->now;
    if (sync) pto__sy_syncop(sy, s, st);
    else pto__sy_access(sy, s, st);
    ++sy->now;
    if (s < sy->n_tt) sy->tend[s] = sy->now;
}

static void pto__sy_block(pto__sy *sy, int32_t b, pto__sy_st *st)
{
    const pto_module *m = sy->m;
    int32_t s;
    /* tiles and lets change nothing (their analysis times are never read:
       skipping them keeps every other time in the same order) */
    for (s = m->blocks[b].head; s >= 0 && !pto__sy_halted(sy); s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        if (x->kind == PTO_ST_OP) pto__sy_op(sy, s, st, pto__sy_issync(x->op));
        else if (x->kind != PTO_ST_TILE && x->kind != PTO_ST_LET) pto__sy_stmt(sy, s, st);
    }
}

/* ---- analysis driver ------------------------------------------------------------
   A core program is the kernel body (sections excluded) or one section's
   body; each is analysed from an empty state, once. */

static void pto__sy_number(pto__sy *sy, int32_t b, int32_t *n, int32_t d)
{
    const pto_module *m = sy->m;
    int32_t s;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        sy->pos[s] = (*n)++;
        if (s < sy->n_dep) sy->dep[s] = d;
        if (m->stmts[s].body >= 0) pto__sy_number(sy, m->stmts[s].body, n, d + 1);
        if (m->stmts[s].orelse >= 0) pto__sy_number(sy, m->stmts[s].orelse, n, d + 1);
    }
}

/* Per-statement tables: preorder positions, loop periods (lcm of the
   rotations of the loop's tiles and of the event ids rotating with it). */
static int pto__sy_tables(pto__sy *sy)
{
    pto_module *m = sy->m;
    size_t n = (size_t)m->n_stmts + 1;
    int32_t s, t, zero = 0;
    pto_free(sy->ctx, sy->pos);
    pto_free(sy->ctx, sy->period);
    pto_free(sy->ctx, sy->phase);
    sy->pos = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    sy->period = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    sy->phase = (int32_t *)pto__sy_zalloc(sy, n * sizeof(int32_t));
    if (!sy->pos || !sy->period || !sy->phase) return 0;
    pto_free(sy->ctx, sy->dep);
    sy->dep = (int32_t *)pto_alloc(sy->ctx, n * sizeof(int32_t));
    sy->n_dep = sy->dep ? m->n_stmts : 0;
    for (s = 0; s < sy->n_dep; s++) sy->dep[s] = -1;
    pto__sy_number(sy, m->kernels[sy->kernel].body, &zero, 0);
    for (s = 0; s < m->n_stmts; s++) sy->period[s] = 1;
    for (t = 0; t < m->n_tiles; t++)
        if (sy->tile_loop[t] >= 0)
            sy->period[sy->tile_loop[t]] = (int32_t)pto__sy_lcm(sy->period[sy->tile_loop[t]], m->tiles[t].nbuf);
    for (s = 0; s < m->n_stmts; s++) {
        const pto_operand *c;
        int64_t base, mod;
        int32_t L;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        c = pto_stmt_arg(m, s, 2);
        if (c && c->kind == PTO_O_INT && pto__sy_idform(m, c->e[0], &base, &mod, &L) && L >= 0)
            sy->period[L] = (int32_t)pto__sy_lcm(sy->period[L], mod);
    }
    return 1;
}

/* The core programs of the kernel: its body, then each section's body. */
static int pto__sy_programs(pto__sy *sy)
{
    const pto_module *m = sy->m;
    int32_t body = m->kernels[sy->kernel].body, s;
    sy->nprogs = 0;
    if (!pto__sy_grow(sy, (void **)&sy->progs, sizeof(int32_t), &sy->cap_progs, 1)) return 0;
    sy->progs[sy->nprogs++] = body;
    for (s = m->blocks[body].head; s >= 0; s = m->stmts[s].next) {
        if (m->stmts[s].kind != PTO_ST_SECTION) continue;
        if (!pto__sy_grow(sy, (void **)&sy->progs, sizeof(int32_t), &sy->cap_progs, sy->nprogs + 1)) return 0;
        sy->progs[sy->nprogs++] = m->stmts[s].body;
    }
    return 1;
}

/* The program (index) and top-level statement that contain statement s. */
/* Analyses program `prog` from an empty state. */
static void pto__sy_run(pto__sy *sy, int32_t prog)
{
    const pto_module *m = sy->m;
    pto__sy_st *st = pto__sy_st_get(sy);
    int32_t s;
    int f;
    if (!st) return;
    st->reached = 1;
    sy->nfr = 0;
    memset(sy->last_set, 0, sizeof sy->last_set);
    sy->restart = sy->restart_grp = sy->pend = -1;
    sy->npendg = 0;
    for (s = m->blocks[sy->progs[prog]].head; s >= 0 && !sy->stop; s = m->stmts[s].next) {
        if (!(m->stmts[s].kind == PTO_ST_OP && pto__sy_issync(m->stmts[s].op))) pto__sy_collect(sy, st);
        pto__sy_stmt(sy, s, st);
    }
    for (f = pto__sy_fs_next(&st->fused, 0); f >= 0 && !sy->stop; f = pto__sy_fs_next(&st->fused, f + 1)) {
        int32_t key = st->fkey[f];
        /* a hardware id: a written set_flag without its wait_flag on some
           path is the author's error, at that set (pto__sy_misuse) */
        if (key < PTO__SY_REAL && sy->last_set[key] > 0) {
            pto__sy_misuse(sy, sy->last_set[key] - 1, "event id may be left set at kernel end");
            continue;
        }
        if (key < PTO__SY_REAL)
            pto_error(sy->ctx, m->kernels[sy->kernel].loc, "sync: event id %s -> %s %d may be left set at kernel end",
                      pto_pipe_name((pto_pipe)(key / 64)), pto_pipe_name((pto_pipe)(key / 8 % 8)), (int)(key % 8));
        else
            pto_error(sy->ctx, m->kernels[sy->kernel].loc, "sync: internal: flag group %d left set at kernel end",
                      (int)((key - PTO__SY_REAL) / PTO__SY_MAXROT));
        pto__sy_fail(sy, PTO_ERR_INTERNAL);
    }
    pto__sy_st_put(sy, st);
}

/* One analysis of the kernel: FIND orders every uncovered dependency as it
   meets it; CHECK reports one as an internal error. */
static void pto__sy_analyse(pto__sy *sy, int mode)
{
    int32_t k;
    if (!pto__sy_tables(sy) || !pto__sy_programs(sy)) return;
    pto_free(sy->ctx, sy->tstart);
    pto_free(sy->ctx, sy->tend);
    sy->n_tt = sy->m->n_stmts;
    sy->tstart = (uint32_t *)pto__sy_zalloc(sy, sizeof(uint32_t) * ((size_t)sy->n_tt + 1));
    sy->tend = (uint32_t *)pto__sy_zalloc(sy, sizeof(uint32_t) * ((size_t)sy->n_tt + 1));
    pto_free(sy->ctx, sy->idc);
    pto_free(sy->ctx, sy->uidc);
    sy->idc = sy->uidc = NULL;   /* pto__sy_idc_of makes them */
    sy->n_idc = sy->cap_idc = 0;
    if (!sy->tstart || !sy->tend) return;
    sy->mode = mode;
    sy->found = 0;
    sy->now = 0;
    sy->stats.rounds++;
    sy->nkeys = PTO__SY_REAL + (mode == PTO__SY_FIND ? PTO__SY_MAXROT * sy->n_grps : 0);
    for (k = 0; k < sy->nprogs && !sy->stop; k++) pto__sy_run(sy, k);
}

/* ---- insertion ------------------------------------------------------------------- */

/* Placed statements, their operands and their id expressions are written
   straight into the module's arrays (each grows by doubling, as
   PTO__PUSH does): the builders of ir.c would zero each element and then
   set it field by field, and a kernel gets a few of them per access. */
static int pto__sy_room_to(pto__sy *sy, void **p, size_t esz, int32_t n, int32_t *cap, int32_t more)
{
    void *q;
    int32_t ncap;
    if (*cap > INT32_MAX / 2 - more) return 0;
    ncap = *cap * 2 > n + more ? *cap * 2 : n + more + 16;
    if (!(q = pto_realloc(sy->ctx, *p, (size_t)ncap * esz))) return 0;
    *p = q;
    *cap = ncap;
    return 1;
}

static inline int pto__sy_room(pto__sy *sy, void **p, size_t esz, int32_t n, int32_t *cap, int32_t more)
{
    return n + more <= *cap || pto__sy_room_to(sy, p, esz, n, cap, more);
}

static int32_t pto__sy_new_expr(pto__sy *sy, uint8_t kind, int32_t a, int32_t b, int64_t v, pto_loc loc)
{
    pto_module *m = sy->m;
    pto_expr *x;
    if (!pto__sy_room(sy, (void **)&m->exprs, sizeof *m->exprs, m->n_exprs, &m->cap_exprs, 1)) return -1;
    x = &m->exprs[m->n_exprs];
    memset(x, 0, sizeof *x);   /* padding too: the module's arrays are zeroed where they grow */
    x->kind = kind;
    x->a = a;
    x->b = b;
    x->value = v;
    x->loc = loc;
    return m->n_exprs++;
}

/* Operands [pipe p, pipe q, INT e] (q < 0: only [pipe p]); returns the first. */
static int32_t pto__sy_operands(pto__sy *sy, int p, int q, int32_t e, pto_loc loc)
{
    pto_module *m = sy->m;
    pto_operand *o;
    int32_t n = q < 0 ? 1 : 3;
    if (!pto__sy_room(sy, (void **)&m->operands, sizeof *m->operands, m->n_operands, &m->cap_operands, n)) return -1;
    o = &m->operands[m->n_operands];
    o[0] = sy->opnd_tpl;   /* zero but for the -1s, padding too */
    o[0].kind = PTO_O_PIPE;
    o[0].ref = p;
    o[0].loc = loc;
    if (n == 3) {
        o[1] = o[0];
        o[1].ref = q;
        o[2] = o[0];
        o[2].kind = PTO_O_INT;
        o[2].ref = -1;
        o[2].e[0] = e;
    }
    m->n_operands += n;
    return m->n_operands - n;
}

/* ((i - start) / step) % M of loop L (the division only when step is not
   1): the same tree for every group of the loop that rotates M ids, built
   once and shared (nothing writes it: the colouring changes only each
   group's base, and a degraded rotation gets the tree of its new M). */
static int32_t pto__sy_rotexpr(pto__sy *sy, int32_t L, int32_t M)
{
    pto_module *m = sy->m;
    pto_loc loc = m->stmts[L].loc;
    int32_t c = L & 15, e, step;
    if (sy->iter_loop[c] != L + 1) {
        e = pto__sy_new_expr(sy, PTO_E_VAR, m->stmts[L].ref, -1, 0, loc);
        e = e < 0 ? -1 : pto__sy_new_expr(sy, PTO_E_SUB, e, m->stmts[L].e[0], 0, loc);
        step = m->stmts[L].e[2];
        if (e >= 0 && step >= 0 && !pto__sy_is_int(m, step, 1)) e = pto__sy_new_expr(sy, PTO_E_DIV, e, step, 0, loc);
        if (e < 0) return -1;
        sy->iter_loop[c] = L + 1;
        sy->iter_e[c] = e + 1;
        memset(sy->iter_mod[c], 0, sizeof sy->iter_mod[c]);
    }
    if (M < 1 || M > PTO__SY_MAXROT) return -1;
    if (!sy->iter_mod[c][M]) {
        e = pto__sy_new_expr(sy, PTO_E_INT, -1, -1, M, loc);
        e = e < 0 ? -1 : pto__sy_new_expr(sy, PTO_E_MOD, sy->iter_e[c] - 1, e, 0, loc);
        if (e < 0) return -1;
        sy->iter_mod[c][M] = e + 1;
    }
    return sy->iter_mod[c][M] - 1;
}

/* A group's event id: INT base, or base + rotation (*erot: that ADD node,
   whose rotation a degrade replaces; *ebase: the INT the colouring sets). */
static int32_t pto__sy_idexpr(pto__sy *sy, int32_t L, int64_t base, int32_t nids, int32_t *ebase, int32_t *erot)
{
    int32_t r;
    *erot = -1;
    *ebase = pto__sy_new_expr(sy, PTO_E_INT, -1, -1, base, L >= 0 ? sy->m->stmts[L].loc : *pto__sy_noloc());
    if (L < 0 || nids <= 1 || *ebase < 0) return *ebase;
    if ((r = pto__sy_rotexpr(sy, L, nids)) < 0) return -1;
    *erot = pto__sy_new_expr(sy, PTO_E_ADD, *ebase, r, 0, sy->m->stmts[L].loc);
    return *erot;
}

/* A new sync statement placed before (after = 0) or after `at`. `like`: an
   entry of the same group whose event id is the same expression (set and
   wait; prime and drain of one id): its operands are shared (nothing
   writes an operand after this pass, and every reader goes through arg0),
   as are those of the barriers of one pipe. `ebase` >= 0: the id is that
   INT (a rotating group's prime of id 0 is its base). */
static int32_t pto__sy_emit(pto__sy *sy, int32_t g, uint8_t role, int32_t at, int after, int32_t k, int32_t like,
                            int32_t ebase)
{
    pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t erot = -1, arg0, nargs = 3, s, en;
    pto_stmt *st;
    const pto_loc loc = m->stmts[at].loc;
    if (role == PTO__SY_BARRIER) {
        nargs = 1;
        if (!sy->bar_arg[gr->dst]) {
            if ((arg0 = pto__sy_operands(sy, gr->dst, -1, -1, loc)) < 0) return -1;
            sy->bar_arg[gr->dst] = arg0 + 1;
        }
        arg0 = sy->bar_arg[gr->dst] - 1;
    } else if (like >= 0) {
        ebase = sy->ents[like].ebase;
        erot = sy->ents[like].emod;
        arg0 = m->stmts[sy->ents[like].stmt].arg0;
    } else {
        int rot = (role == PTO__SY_WAIT || role == PTO__SY_SET) && gr->loop >= 0 && gr->nids > 1;
        int32_t expr = ebase;
        if (expr < 0)
            expr = pto__sy_idexpr(sy, rot ? gr->loop : -1,
                                  (int64_t)PTO__SY_VBASE + (int64_t)PTO__SY_MAXROT * g + (k > 0 ? k : 0),
                                  rot ? gr->nids : 1, &ebase, &erot);
        if (expr < 0 || (arg0 = pto__sy_operands(sy, gr->src, gr->dst, expr, loc)) < 0) return -1;
    }
    if (!pto__sy_room(sy, (void **)&m->stmts, sizeof *m->stmts, m->n_stmts, &m->cap_stmts, 1)) return -1;
    s = m->n_stmts++;
    st = &m->stmts[s];
    *st = sy->stmt_tpl;   /* an op of this pass, no links yet; padding zero */
    st->op = (uint16_t)(role == PTO__SY_BARRIER ? PTO_OP_PIPE_BARRIER
                        : role == PTO__SY_SET || role == PTO__SY_PRIME ? PTO_OP_SET_FLAG : PTO_OP_WAIT_FLAG);
    st->core = m->stmts[at].core;
    st->arg0 = arg0;
    st->nargs = nargs;
    /* the notes come after the analysis (pto__sy_notes), but for the
       fallback's barriers */
    st->note = !sy->noted ? 0 : role == PTO__SY_PRIME ? gr->pnote : role == PTO__SY_DRAIN ? gr->dnote : gr->note;
    st->loc = loc;
    if (after) pto_insert_after(m, at, s);
    else pto_insert_before(m, at, s);
    if (!pto__sy_grow(sy, (void **)&sy->ents, sizeof *sy->ents, &sy->cap_ents, sy->n_ents + 1)) return -1;
    en = sy->n_ents++;
    memset(&sy->ents[en], 0, sizeof sy->ents[en]);   /* fields not set here start at 0 */
    sy->ents[en].stmt = s;
    sy->ents[en].grp = g;
    sy->ents[en].ebase = ebase;
    sy->ents[en].emod = erot;
    sy->ents[en].k = (int8_t)k;
    sy->ents[en].role = role;
    return s;
}

/* The rotation for a dependency carried by loop L: the number of iterations
   D until the conflicting bytes recur (slots of L's xN tiles rotate with the
   phase; other tiles may be in any slot), capped by the tiles' N. */
static int32_t pto__sy_rotation(pto__sy *sy, int32_t L, int32_t ra, int32_t rb)
{
    const pto_module *m = sy->m;
    int32_t oa = sy->recs[ra].opnd, ob = sy->recs[rb].opnd;
    int32_t r0a = sy->rec_of[oa], r0b = sy->rec_of[ob], na = 1, nb = 1, ta = -1, tb = -1, d, ph, i, j, nmax = 1;
    int rota = 0, rotb = 0;
    int64_t per;
    if (m->operands[oa].kind == PTO_O_TILE) { ta = m->operands[oa].ref; na = m->tiles[ta].nbuf; rota = sy->tile_loop[ta] == L && na > 1; }
    if (m->operands[ob].kind == PTO_O_TILE) { tb = m->operands[ob].ref; nb = m->tiles[tb].nbuf; rotb = sy->tile_loop[tb] == L && nb > 1; }
    if (rota && na > nmax) nmax = na;
    if (rotb && nb > nmax) nmax = nb;
    if (nmax == 1) return 1;
    per = pto__sy_lcm(rota ? na : 1, rotb ? nb : 1);
    for (d = 1; d < nmax; d++)
        for (ph = 0; ph < per; ph++) {
            /* a rotating side is in one slot at phase ph (the other side d
               iterations later); the other is in any */
            int32_t i0 = rota ? ph % na : 0, i1 = rota ? i0 + 1 : na;
            int32_t j0 = rotb ? (ph + d) % nb : 0, j1 = rotb ? j0 + 1 : nb;
            for (i = i0; i < i1; i++)
                for (j = j0; j < j1; j++)
                    if (pto__sy_conflict(sy, r0a + i, r0b + j)) return d;
        }
    return nmax;
}

static int32_t pto__sy_new_group(pto__sy *sy, uint8_t kind, int src, int dst, int32_t L, int32_t nids, int carried)
{
    int32_t g = PTO__PUSH_FAST(sy, grps);
    pto__sy_grp *gr;
    if (g < 0) return -1;
    gr = &sy->grps[g];
    gr->kind = kind;
    gr->src = (uint8_t)src;
    gr->dst = (uint8_t)dst;
    gr->loop = L;
    gr->anchor = gr->dafter = gr->pbefore = L;
    gr->nids = (uint8_t)nids;
    gr->base = -1;
    gr->arec = sy->h_rec;
    gr->bstmt = sy->h_bstmt;
    gr->bopnd = sy->h_bopnd;
    gr->note = 0;   /* pto__sy_notes */
    gr->pb = -1;
    gr->pnote = gr->dnote = 0;
    gr->e0 = sy->n_ents;
    gr->ne = 0;
    gr->brec = sy->h_brec;
    gr->carried = (uint8_t)carried;
    return g;
}

/* Bytes [*lo, *hi) of every slot of operand o's records (its tile's). */
static void pto__sy_opnd_span(const pto__sy *sy, int32_t o, int64_t *lo, int64_t *hi)
{
    const pto_operand *op = &sy->m->operands[o];
    int32_t r0 = sy->rec_of[o], n = 1, k;
    if (op->kind == PTO_O_TILE && op->ref >= 0 && op->ref < sy->m->n_tiles) n = pto__sy_slots(&sy->m->tiles[op->ref]);
    for (k = 0; k < n; k++) {
        if (sy->recs[r0 + k].lo < *lo) *lo = sy->recs[r0 + k].lo;
        if (sy->recs[r0 + k].hi > *hi) *hi = sy->recs[r0 + k].hi;
    }
}

/* Whether no op of block b's statements (their bodies too), statement
   skip's subtree aside, touches bytes [lo, hi) of space sp. At most
   *budget statements are looked at (then: "touched", the pair stays where
   it is), so a long outer loop around many inner ones costs no more than
   a bounded walk per pair. */
static int pto__sy_untouched(const pto__sy *sy, int32_t b, int32_t skip, int sp, int64_t lo, int64_t hi, int32_t *budget)
{
    const pto_module *m = sy->m;
    int32_t s, i;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        if (s == skip) continue;
        if (--*budget < 0) return 0;
        if (x->kind == PTO_ST_OP && s < sy->s0 && !pto__sy_issync(x->op))
            for (i = 0; i < x->nargs; i++) {
                int32_t o = x->arg0 + i;
                int64_t l = INT64_MAX, h = INT64_MIN;
                if (sy->rec_of[o] < 0 || sy->recs[sy->rec_of[o]].space != sp) continue;
                pto__sy_opnd_span(sy, o, &l, &h);
                if (l < hi && lo < h) return 0;
            }
        if (x->body >= 0 && !pto__sy_untouched(sy, x->body, skip, sp, lo, hi, budget)) return 0;
        if (x->orelse >= 0 && !pto__sy_untouched(sy, x->orelse, skip, sp, lo, hi, budget)) return 0;
    }
    return 1;
}

/* Where a carried pair of loop L (the dependency found: h_rec -> h_brec)
   puts its primes and drains. Around L, they prime and drain once per run
   of L: inside an outer loop O, the producer pipe then waits at every
   iteration of O for the last consumer of the run before (the pipeline
   empties there). Around O instead, each id alternates set, wait, set,
   ..., wait over the whole nest whatever the trip counts (every use of a
   slot waits its id, then sets it), and a run of L waits for the previous
   run's last set of the slot: the same dependency. So they move out
   through each loop O around L (L the only statement of O's body that
   touches the dependency's bytes, any slot; local bytes only) and the
   analysis of O orders the rest. Through an if too (L in an if of O's
   body, review16's finding 3): a run of L that the if skips sets and waits
   nothing, so each id still alternates; around the if, the primes would
   follow the previous iteration's drains with nothing ordering that reuse,
   and the pass would add order pairs each iteration of O. */
static int32_t pto__sy_anchor(pto__sy *sy, int32_t L)
{
    const pto_module *m = sy->m;
    const pto__sy_rec *a = &sy->recs[sy->h_rec];
    int32_t A = L, X = L, O, budget = 4096;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (a->space == PTO_GM || sy->recs[sy->h_brec].space != a->space) return L;
    pto__sy_opnd_span(sy, a->opnd, &lo, &hi);
    pto__sy_opnd_span(sy, sy->recs[sy->h_brec].opnd, &lo, &hi);
    while ((O = pto__sy_up(m, X)) >= 0) {
        if (m->stmts[O].kind == PTO_ST_IF) { X = O; continue; }   /* an anchor is a loop: look on */
        if (m->stmts[O].kind != PTO_ST_FOR || !pto__sy_untouched(sy, m->stmts[O].body, A, a->space, lo, hi, &budget))
            break;
        A = X = O;
    }
    return A;
}

/* The bytes a pipe's accesses in a subtree touch: up to 16 local byte
   ranges (past them, the hull of the last one grows), and the GM tensors
   (by param; `gm_all` past 8 of them). A hull of a whole loop would
   cover the next loop's tiles planned between its tiles. */
typedef struct pto__sy_foot {
    int64_t lo[16], hi[16];
    uint8_t sp[16];
    int n;
    uint8_t all;                /* spaces wholly in it (past 16 ranges) */
    int32_t gm[8];
    int ngm, gm_all;
} pto__sy_foot;

/* An empty footprint (its arrays are read only up to n and ngm). */
static void pto__sy_foot_init(pto__sy_foot *f)
{
    f->n = f->ngm = f->gm_all = 0;
    f->all = 0;
}

static void pto__sy_foot_range(pto__sy_foot *f, int sp, int64_t lo, int64_t hi)
{
    int i;
    for (i = 0; i < f->n; i++)
        if (f->sp[i] == sp && lo <= f->hi[i] && f->lo[i] <= hi) break;   /* overlapping or adjacent */
    if (i == f->n) {
        if (f->n < 16) {
            f->sp[f->n] = (uint8_t)sp;
            f->lo[f->n] = lo;
            f->hi[f->n++] = hi;
            return;
        }
        for (i = f->n - 1; i >= 0 && f->sp[i] != sp; i--) continue;   /* full: widen one of the space */
        if (i < 0) { f->all |= (uint8_t)(1u << sp); return; }
    }
    if (lo < f->lo[i]) f->lo[i] = lo;
    if (hi > f->hi[i]) f->hi[i] = hi;
}

static void pto__sy_foot_add(const pto__sy *sy, pto__sy_foot *f, int32_t o)
{
    const pto__sy_rec *r = &sy->recs[sy->rec_of[o]];
    int64_t l = INT64_MAX, h = INT64_MIN;
    int i;
    if (r->space == PTO_GM) {
        int32_t ref = sy->m->operands[o].ref;
        for (i = 0; i < f->ngm && f->gm[i] != ref; i++) continue;
        if (i == f->ngm) {
            if (f->ngm < 8) f->gm[f->ngm++] = ref;
            else f->gm_all = 1;
        }
        return;
    }
    pto__sy_opnd_span(sy, o, &l, &h);
    pto__sy_foot_range(f, r->space, l, h);
}

/* Operand o (with a record) touches what foot holds. */
static int pto__sy_foot_hits(const pto__sy *sy, const pto__sy_foot *f, int32_t o)
{
    const pto__sy_rec *r = &sy->recs[sy->rec_of[o]];
    int64_t l = INT64_MAX, h = INT64_MIN;
    int i;
    if (r->space == PTO_GM) {
        if (f->gm_all) return 1;
        for (i = 0; i < f->ngm; i++)
            if (f->gm[i] == sy->m->operands[o].ref) return 1;
        return 0;
    }
    if (f->all & (1u << r->space)) return 1;
    pto__sy_opnd_span(sy, o, &l, &h);
    for (i = 0; i < f->n; i++)
        if (f->sp[i] == r->space && l < f->hi[i] && f->lo[i] < h) return 1;
    return 0;
}

/* Op statement s has an access on pipe q that touches *f, or one on any
   pipe that touches *dep. */
static int pto__sy_op_hits(const pto__sy *sy, int32_t s, int q, const pto__sy_foot *f, const pto__sy_foot *dep)
{
    const pto_stmt *x = &sy->m->stmts[s];
    int32_t i;
    for (i = 0; i < x->nargs; i++) {
        int32_t o = x->arg0 + i;
        if (sy->rec_of[o] < 0) continue;
        if ((sy->recs[sy->rec_of[o]].pipe == q && pto__sy_foot_hits(sy, f, o)) || pto__sy_foot_hits(sy, dep, o)) return 1;
    }
    return 0;
}

/* Where the walks of pto__sy_sink and pto__sy_rise end: a section, or a
   PIPE_ALL fence of the kernel's own (lower's, before a notify: every
   pipe waits there anyway). */
static int pto__sy_fence(const pto__sy *sy, int32_t s)
{
    const pto_stmt *x = &sy->m->stmts[s];
    return x->kind == PTO_ST_SECTION
           || (x->kind == PTO_ST_OP && x->op == PTO_OP_PIPE_BARRIER && s < sy->s0 && x->nargs == 1
               && sy->m->operands[x->arg0].ref == PTO_PIPE_ALL);
}

/* A sync statement (placed or the kernel's own): a flag goes past it, never
   to it. */
static int pto__sy_not_place(const pto__sy *sy, int32_t s)
{
    const pto_stmt *x = &sy->m->stmts[s];
    return x->kind == PTO_ST_OP && (s >= sy->s0 || pto__sy_issync(x->op));
}

/* The footprint walks of pto__sy_sink and pto__sy_rise, read from lists: a
   carried pair of a loop looks at the loops before and after it, so each
   loop body is walked again for every pair of three loops. What a walk
   reads never changes during the analysis (placements add only sync
   statements, which the walks skip), so a block's accesses are listed
   once, in the walk's order; only the number of statements a walk would
   visit (its budget) is counted again, as placements add to it. */
typedef struct pto__sy_acc {
    int32_t lo, hi;             /* bytes of every slot (GM: lo is the tensor's param) */
    uint8_t pipe, space;        /* of its first record */
} pto__sy_acc;

static int32_t pto__sy_list_accs(pto__sy *sy, int32_t b)
{
    const pto_module *m = sy->m;
    const pto__sy_rec *recs = sy->recs;
    const int32_t *rec_of = sy->rec_of;
    int32_t s, i, k, n, first = sy->n_acc, nst = 0;
    for (s = m->blocks[b].head; s >= 0 && sy->status == PTO_OK; s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        nst++;
        if (x->kind == PTO_ST_OP && s < sy->s0 && !pto__sy_issync(x->op)
            && pto__sy_grow(sy, (void **)&sy->acc, sizeof *sy->acc, &sy->cap_acc, sy->n_acc + x->nargs)) {
            pto__sy_acc *a = sy->acc + sy->n_acc;
            for (i = 0; i < x->nargs; i++) {
                const pto_operand *op = &m->operands[x->arg0 + i];
                const pto__sy_rec *r;
                if (rec_of[x->arg0 + i] < 0) continue;
                r = &recs[rec_of[x->arg0 + i]];
                a->pipe = r->pipe;
                a->space = r->space;
                a->lo = r->lo;
                a->hi = r->hi;
                if (r->space == PTO_GM) {
                    a->lo = op->ref;
                    a->hi = 0;
                } else if (op->kind == PTO_O_TILE && op->ref >= 0 && op->ref < m->n_tiles) {
                    /* every slot (pto__sy_opnd_span) */
                    for (k = 1, n = pto__sy_slots(&m->tiles[op->ref]); k < n; k++) {
                        if (r[k].lo < a->lo) a->lo = r[k].lo;
                        if (r[k].hi > a->hi) a->hi = r[k].hi;
                    }
                }
                a++;
            }
            sy->n_acc = (int32_t)(a - sy->acc);
        }
        if (x->body >= 0) nst += pto__sy_list_accs(sy, x->body);
        if (x->orelse >= 0) nst += pto__sy_list_accs(sy, x->orelse);
    }
    sy->blk_acc[4 * b] = first + 1;   /* a block inside one listed before is listed again: the same */
    sy->blk_acc[4 * b + 1] = sy->n_acc - first;
    sy->blk_acc[4 * b + 2] = nst;
    sy->blk_acc[4 * b + 3] = m->n_stmts;
    return nst;
}

/* Block b's accesses (*n of them), listed on first use; NULL when out of
   memory (the pass then fails). */
static const pto__sy_acc *pto__sy_blk_accs(pto__sy *sy, int32_t b, int32_t *n)
{
    if (!sy->blk_acc && !(sy->blk_acc = (int32_t *)pto__sy_zalloc(sy, sizeof(int32_t) * 4 * ((size_t)sy->m->n_blocks + 1))))
        return NULL;
    if (!sy->blk_acc[4 * b]) pto__sy_list_accs(sy, b);
    if (sy->status != PTO_OK) return NULL;
    *n = sy->blk_acc[4 * b + 1];
    return sy->acc + sy->blk_acc[4 * b] - 1;
}

/* The statements a walk of block b visits (bodies too): counted (exact),
   or at most that many (those listed with its accesses, and every statement
   made since: the analysis adds statements only as new ones, pto__sy_emit).
   The walks run on the bound first, and again counting when their budget
   ran out on it (pto__sy_sink, pto__sy_rise), which it hardly ever does:
   the same places either way. */
static int32_t pto__sy_nstmts(const pto_module *m, int32_t b)
{
    int32_t s, n = 0;
    for (s = m->blocks[b].head; s >= 0; s = m->stmts[s].next) {
        n++;
        if (m->stmts[s].body >= 0) n += pto__sy_nstmts(m, m->stmts[s].body);
        if (m->stmts[s].orelse >= 0) n += pto__sy_nstmts(m, m->stmts[s].orelse);
    }
    return n;
}

static int32_t pto__sy_walked(const pto__sy *sy, int32_t b, int exact)
{
    if (exact) return pto__sy_nstmts(sy->m, b);
    return sy->blk_acc[4 * b + 2] + (sy->m->n_stmts - sy->blk_acc[4 * b + 3]);   /* listed: pto__sy_blk_accs */
}

/* A walk's budget: n more statements, or spent (then: "touches"). */
static int pto__sy_spend(int32_t *budget, int32_t n)
{
    if (*budget - n < 0) {
        *budget = -1;
        return 1;
    }
    *budget -= n;
    return 0;
}

/* Access a touches what foot holds (pto__sy_foot_hits). */
static int pto__sy_acc_hits(const pto__sy_foot *f, const pto__sy_acc *a)
{
    int i;
    if (a->space == PTO_GM) {
        if (f->gm_all) return 1;
        for (i = 0; i < f->ngm; i++)
            if (f->gm[i] == a->lo) return 1;
        return 0;
    }
    if (f->all & (1u << a->space)) return 1;
    for (i = 0; i < f->n; i++)
        if (f->sp[i] == a->space && a->lo < f->hi[i] && f->lo[i] < a->hi) return 1;
    return 0;
}

/* Adds pipe p's accesses in block b (bodies too) to *f. At most *budget
   statements are looked at (then: 1, "touches"). */
static int pto__sy_blk_foot(pto__sy *sy, int32_t b, int p, pto__sy_foot *f, int32_t *budget, int exact)
{
    int32_t n, k, i;
    const pto__sy_acc *a = pto__sy_blk_accs(sy, b, &n);
    if (!a || pto__sy_spend(budget, pto__sy_walked(sy, b, exact))) return 1;
    for (k = 0; k < n; k++) {
        if (a[k].pipe != p) continue;
        if (a[k].space != PTO_GM) {
            pto__sy_foot_range(f, a[k].space, a[k].lo, a[k].hi);
            continue;
        }
        for (i = 0; i < f->ngm && f->gm[i] != a[k].lo; i++) continue;
        if (i == f->ngm) {
            if (f->ngm < 8) f->gm[f->ngm++] = a[k].lo;
            else f->gm_all = 1;
        }
    }
    return 0;
}

/* Block b (bodies too) has an access on pipe q that touches *f, or one on
   any pipe that touches the bytes in *dep. At most *budget statements are
   looked at (then: "touches"). */
static int pto__sy_blk_hits(pto__sy *sy, int32_t b, int q, const pto__sy_foot *f, const pto__sy_foot *dep,
                            int32_t *budget, int exact)
{
    int32_t n, k;
    const pto__sy_acc *a = pto__sy_blk_accs(sy, b, &n);
    if (!a) return 1;
    for (k = 0; k < n; k++)
        if ((a[k].pipe == q && pto__sy_acc_hits(f, &a[k])) || pto__sy_acc_hits(dep, &a[k])) return 1;
    return pto__sy_spend(budget, pto__sy_walked(sy, b, exact));
}

/* Statement s (its bodies too) has an access on `pipe` that touches *f, or
   one on any pipe that touches *dep (pto__sy_blk_hits). */
static int pto__sy_stmt_hits(pto__sy *sy, int32_t s, int pipe, pto__sy_foot *f, const pto__sy_foot *dep,
                             int32_t *budget, int exact)
{
    const pto_stmt *x = &sy->m->stmts[s];
    if (x->kind == PTO_ST_OP && pto__sy_op_hits(sy, s, pipe, f, dep)) return 1;
    if (x->body >= 0 && pto__sy_blk_hits(sy, x->body, pipe, f, dep, budget, exact)) return 1;
    return x->orelse >= 0 && pto__sy_blk_hits(sy, x->orelse, pipe, f, dep, budget, exact);
}

/* Where the drains of a carried pair (producer pipe p) anchored at A go:
   after A, or further down A's block. A drain is a wait_flag on the
   consumer pipe, whose queue is in order: right after A it holds every
   later instruction of that pipe until the producer's last set of the
   run, so the next loop's loads cannot start under this loop's last
   compute (a two-pass kernel lost ~7% at its one boundary); further down
   it holds only what comes after it. The drain orders more than the
   dependency: its set captured every record of p, and q waits for them
   there. So it passes only statements whose accesses on q touch nothing
   p accesses in A (bytes per space, GM tensors) and none of which touches
   the dependency's bytes; at most one loop (a loop passed keeps the pair's
   ids busy longer: colouring pressure); no PIPE_ALL fence; a bounded walk.
   What it still ordered there (a record of p from before A, or one a
   chain of flags from q carried to another pipe) a later access finds
   unordered, and the analysis gives it its own pair. */
static int32_t pto__sy_sink_at(pto__sy *sy, int32_t A, int p, int q, const pto__sy_foot *dep, int exact, int32_t *left)
{
    const pto_module *m = sy->m;
    pto__sy_foot f;
    int32_t s, at = A, loops = 0;
    pto__sy_foot_init(&f);
    *left = 4096;
    if (m->stmts[A].body < 0 || pto__sy_blk_foot(sy, m->stmts[A].body, p, &f, left, exact)) return A;
    for (s = m->stmts[A].next; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *x = &m->stmts[s];
        if (pto__sy_fence(sy, s)) break;
        if (pto__sy_not_place(sy, s)) continue;
        if (x->kind == PTO_ST_FOR && ++loops > 1) break;
        if (pto__sy_stmt_hits(sy, s, q, &f, dep, left, exact) || --*left < 0) break;
        if (x->kind != PTO_ST_TILE && x->kind != PTO_ST_LET) at = s;   /* only past work */
    }
    return at;
}

/* (the walk's budget: on a bound of what it visits, then counted if that
   ran out: pto__sy_walked) */
static int32_t pto__sy_sink(pto__sy *sy, int32_t A, int p, int q, const pto__sy_foot *dep)
{
    int32_t left, at = pto__sy_sink_at(sy, A, p, q, dep, 0, &left);
    return left < 0 ? pto__sy_sink_at(sy, A, p, q, dep, 1, &left) : at;
}

/* Statement s (its bodies too) has an access on pipe p. At most *budget
   statements are looked at (then: it has). */
static int pto__sy_has_work(const pto__sy *sy, int32_t s, int p, int32_t *budget)
{
    const pto_module *m = sy->m;
    const pto_stmt *x = &m->stmts[s];
    int32_t i, b, t;
    if (--*budget < 0) return 1;
    if (x->kind == PTO_ST_OP && s < sy->s0 && !pto__sy_issync(x->op))
        for (i = 0; i < x->nargs; i++)
            if (sy->rec_of[x->arg0 + i] >= 0 && sy->recs[sy->rec_of[x->arg0 + i]].pipe == p) return 1;
    for (b = x->body; b >= 0; b = b == x->body ? x->orelse : -1)
        for (t = m->blocks[b].head; t >= 0; t = m->stmts[t].next)
            if (pto__sy_has_work(sy, t, p, budget)) return 1;
    return 0;
}

/* Where the primes of a carried pair (producer pipe p, consumer q)
   anchored at A go: right before A, or further up A's block. A prime is
   a set_flag on the producer pipe, whose queue is in order: right before
   A it fires only when every earlier instruction of p has ended, so A's
   first use of the slot (its wait) queues behind the previous loop's last
   compute; further up it fires once p's work before it has ended. It
   captures less there, and the analysis accounts for exactly that (the
   loop is analysed again from its entry with the set's capture as of its
   place: pto__sy_prime_op), so a dependency it no longer orders gets its
   own pair. To keep that from happening it passes only statements whose
   accesses on p touch nothing q accesses in A and none of which touches
   the dependency's bytes; at most one loop (a loop passed keeps the
   pair's ids busy longer: colouring pressure, and the colouring moves it
   back when ids run short: pto__sy_unrise); no PIPE_ALL fence; a bounded
   walk. It goes before the earliest statement passed that has work on p:
   passing only others gains nothing. */
static int32_t pto__sy_rise_at(pto__sy *sy, int32_t A, int p, int q, const pto__sy_foot *dep, int exact, int32_t *left)
{
    const pto_module *m = sy->m;
    pto__sy_foot f;
    int32_t s, at = A, budget = 4096, loops = 0;
    int built = 0;
    pto__sy_foot_init(&f);
    *left = budget;
    if (m->stmts[A].body < 0) return A;
    for (s = m->stmts[A].prev; s >= 0; s = m->stmts[s].prev) {
        const pto_stmt *x = &m->stmts[s];
        if (pto__sy_fence(sy, s)) break;
        if (pto__sy_not_place(sy, s) || x->kind == PTO_ST_TILE || x->kind == PTO_ST_LET) continue;   /* no work */
        if (x->kind == PTO_ST_FOR && ++loops > 1) break;
        if (!built) {   /* the dependency's bytes alone first: the usual stop (a planner reusing bytes
                           loop to loop) needs no walk of A for its footprint */
            if (pto__sy_stmt_hits(sy, s, p, &f, dep, &budget, exact)
                || pto__sy_blk_foot(sy, m->stmts[A].body, q, &f, &budget, exact))
                break;
            built = 1;
        }
        if (pto__sy_stmt_hits(sy, s, p, &f, dep, &budget, exact) || --budget < 0) break;
        if (pto__sy_has_work(sy, s, p, &budget)) at = s;
        if (budget < 0) { at = A; break; }
    }
    *left = budget;
    return at;
}

/* (as pto__sy_sink: a bound first) */
static int32_t pto__sy_rise(pto__sy *sy, int32_t A, int p, int q, const pto__sy_foot *dep)
{
    int32_t left, at = pto__sy_rise_at(sy, A, p, q, dep, 0, &left);
    return left < 0 ? pto__sy_rise_at(sy, A, p, q, dep, 1, &left) : at;
}

/* Orders the dependency the last FIND analysis reported. */
/* The rotation of a forward pair set after pa (in the block of a loop L):
   its set of iteration i + M must follow the wait of iteration i, or the
   producer pipe, running ahead, sets the binary event while it is still
   set (hardware.md section 4). The consumer's access of iteration i and the
   producer's of i + D touch the same bytes (D: the distance until they
   recur, pto__sy_rotation read backwards), so that dependency is ordered,
   and the producer's set follows its access: any M >= D is safe. M divides
   L's period, so the analysis' phases decode the id. */
static int32_t pto__sy_fwd_rotation(pto__sy *sy, int32_t pa)
{
    int32_t L = pto_stmt_loop(sy->m, pa), D, M;
    if (L < 0) return 1;
    D = pto__sy_rotation(sy, L, sy->h_brec, sy->h_rec);
    for (M = D; M <= PTO__SY_MAXROT && sy->period[L] % M != 0; M++) {}
    return M <= PTO__SY_MAXROT ? M : 1;
}

static pto_status pto__sy_place(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t a = sy->recs[sy->h_rec].stmt, b = sy->h_bstmt, pa, pb, L = -1, as, bs, g, k, M = 1, kent[PTO__SY_MAXROT], s;
    int p = sy->recs[sy->h_rec].pipe, q = sy->recs[sy->h_brec].pipe, ok = 1;   /* h_brec is b's */
    pto__sy_lca(sy, a, b, &pa, &pb);
    if (!sy->h_fwd) {
        L = pto_stmt_loop(m, pa);
        if (L < 0) {
            pto_error(sy->ctx, m->stmts[b].loc, "sync: internal: a backward dependency outside any loop");
            return PTO_ERR_INTERNAL;
        }
        /* pa and pb stay in the lowest common block: an if body inside L
           when both accesses are in it (the pair then runs in the
           iterations that take the if, where a set and its wait both run:
           still balanced; placed around the if, its set would run in the
           others too, with nothing there to order its id's reuse, and the
           order pairs that then need cost the loop its buffering) */
    }
    if (p == q) {
        g = pto__sy_new_group(sy, PTO__SY_BAR, p, q, -1, 0, !sy->h_fwd);
        if (g < 0 || pto__sy_emit(sy, g, PTO__SY_BARRIER, pb, 0, -1, -1, -1) < 0) return PTO_ERR_INTERNAL;
        sy->stats.barriers++;
        return PTO_OK;
    }
    if (!sy->h_fwd) {
        int64_t T = pto__sy_const_trips(m, L);
        M = pto__sy_rotation(sy, L, sy->h_rec, sy->h_brec);
        /* a run of T < M literal iterations uses ids base .. base + T - 1
           only, one per slot it touches (slot = id): the others would be
           primed and drained for nothing, and ids are scarce (review16) */
        if (T >= 1 && T < M) M = (int32_t)T;
    }
    else M = pto__sy_fwd_rotation(sy, pa);
    g = pto__sy_new_group(sy, sy->h_fwd ? PTO__SY_FWD : PTO__SY_LOOP, p, q, L, M, !sy->h_fwd);
    if (g < 0) return PTO_ERR_INTERNAL;
    if (sy->h_fwd && M > 1) sy->grps[g].loop = sy->grps[g].anchor = pto_stmt_loop(m, pa);
    as = pto__sy_emit(sy, g, PTO__SY_SET, pa, 1, -1, -1, -1);
    bs = as >= 0 ? pto__sy_emit(sy, g, PTO__SY_WAIT, pb, 0, -1, sy->n_ents - 1, -1) : -1;
    ok = as >= 0 && bs >= 0;
    if (L >= 0) {
        const pto__sy_rec *ra = &sy->recs[sy->h_rec];
        sy->grps[g].anchor = pto__sy_anchor(sy, L);
        sy->grps[g].dafter = sy->grps[g].anchor;
        if (ra->space != PTO_GM && sy->recs[sy->h_brec].space == ra->space) {
            pto__sy_foot dep;
            pto__sy_foot_init(&dep);
            pto__sy_foot_add(sy, &dep, ra->opnd);
            pto__sy_foot_add(sy, &dep, sy->recs[sy->h_brec].opnd);
            sy->grps[g].dafter = pto__sy_sink(sy, sy->grps[g].anchor, p, q, &dep);
            sy->grps[g].pbefore = pto__sy_rise(sy, sy->grps[g].anchor, p, q, &dep);
        }
    }
    for (k = 0; k < PTO__SY_MAXROT; k++) kent[k] = -1;
    /* one id: the prime and drain use the set's id expression (the same
       virtual id, the same colour, and no rotation to degrade) */
    if (ok && M == 1) kent[0] = sy->n_ents - 2;
    for (k = 0; ok && L >= 0 && k < M; k++) {
        int32_t kd = M - 1 - k;
        /* a rotation's id 0 is its base: the set's INT */
        ok = (s = pto__sy_emit(sy, g, PTO__SY_PRIME, sy->grps[g].pbefore, 0, k, k < PTO__SY_MAXROT ? kent[k] : -1,
                               k == 0 && M > 1 ? sy->ents[sy->grps[g].e0].ebase : -1)) >= 0;
        if (ok) m->stmts[s].loc = m->stmts[sy->grps[g].anchor].loc;   /* named by its loop's line */
        if (ok && k < PTO__SY_MAXROT && kent[k] < 0) kent[k] = sy->n_ents - 1;
        ok = ok && (s = pto__sy_emit(sy, g, PTO__SY_DRAIN, sy->grps[g].dafter, 1, kd, kd < PTO__SY_MAXROT ? kent[kd] : -1,
                                     kd == 0 && M > 1 ? sy->ents[sy->grps[g].e0].ebase : -1)) >= 0;
        if (ok) m->stmts[s].loc = m->stmts[sy->grps[g].anchor].loc;   /* named by its loop's line */
        if (ok && kd < PTO__SY_MAXROT && kent[kd] < 0) kent[kd] = sy->n_ents - 1;
    }
    return ok ? PTO_OK : PTO_ERR_INTERNAL;
}

/* ---- event ids ------------------------------------------------------------------- */

static int32_t pto__sy_limit(const pto__sy *sy, int src, int dst)
{
    int32_t lim = sy->ids_per_pair;
    /* hardware.md s4: M -> FIX deadlocked with ids 3..7 on one device */
    if (src == PTO_PIPE_M && dst == PTO_PIPE_FIX && lim > 3) lim = 3;
    return lim;
}

static void pto__sy_unlink_ent(pto__sy *sy, int32_t e)
{
    if (sy->ents[e].stmt < 0) return;
    pto_unlink(sy->m, sy->ents[e].stmt);
    sy->ents[e].stmt = -1;
}

static const char *pto__sy_opname(const pto__sy *sy, int32_t o)
{
    const pto_operand *op = &sy->m->operands[o];
    if (op->kind == PTO_O_TILE) return pto_str(sy->ctx, sy->m->tiles[op->ref].name);
    if (op->kind == PTO_O_GM) return pto_str(sy->ctx, sy->m->params[op->ref].name);
    return "?";
}

/* "tile t8" or "tiles a and b" (tiles that share bytes after reuse). */
static void pto__sy_tiles(const pto__sy *sy, const pto__sy_grp *gr, char *buf, size_t n)
{
    const char *a = pto__sy_opname(sy, sy->recs[gr->arec].opnd), *b = pto__sy_opname(sy, gr->bopnd);
    const char *what = sy->m->operands[gr->bopnd].kind == PTO_O_GM ? "tensor" : "tile";
    if (strcmp(a, b) == 0) snprintf(buf, n, "%s %s", what, a);
    else snprintf(buf, n, "%ss %s and %s", what, a, b);
}

static void pto__sy_degrade(pto__sy *sy, int32_t g, int32_t M)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e, rot = -1;
    char tiles[160];
    const char *nm;
    pto__sy_tiles(sy, gr, tiles, sizeof tiles);
    nm = strchr(tiles, ' ');   /* the names alone */
    /* A carried pair with fewer ids makes each iteration's producer wait for
       the consumer M iterations back instead of N: a shallower buffer, a
       warning (examples/vadd.pto with one id per pair: 5644 -> 6762 cycles,
       1120 in its wait). A forward pair's set of an iteration now also
       follows the consumer's wait M iterations back, which the consumer has
       passed by then once the loop runs, whichever pipe is the busier:
       tests/diag/ids_one.pto, degraded 2 -> 1, waits no cycle there
       (review28 L6: a note). */
    if (gr->kind == PTO__SY_LOOP)
        pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                    "sync: out of event ids for %s -> %s: %d id%s instead of %d rotating for %s: %s (the loop waits "
                    "here as if %s had %d slot%s)",
                    pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), (int)M, M == 1 ? "" : "s",
                    (int)gr->nids, tiles, pto_str(sy->ctx, gr->note), nm ? nm + 1 : tiles, (int)M, M == 1 ? "" : "s");
    else
        pto_note(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                 "sync: out of event ids for %s -> %s: %d id%s instead of %d rotating for %s: %s (a forward pair: "
                 "each set_flag now also follows the wait_flag %d iteration%s back, which %s has passed by then "
                 "once the loop runs)",
                 pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), (int)M, M == 1 ? "" : "s",
                 (int)gr->nids, tiles, pto_str(sy->ctx, gr->note), (int)M, M == 1 ? "" : "s",
                 pto_pipe_name((pto_pipe)gr->dst));
    for (e = 0; e < sy->n_ents; e++) {
        if (sy->ents[e].grp != g || sy->ents[e].stmt < 0) continue;
        if (sy->ents[e].emod >= 0 && M == 1) {   /* one id: the INT base alone (not base + i % 1) */
            sy->m->operands[sy->m->stmts[sy->ents[e].stmt].arg0 + 2].e[0] = sy->ents[e].ebase;
            sy->ents[e].emod = -1;
        } else if (sy->ents[e].emod >= 0) {   /* base + the loop's rotation by M (the old one is shared) */
            if (rot < 0 && (rot = pto__sy_rotexpr(sy, gr->loop, M)) < 0) {
                pto__sy_fail(sy, PTO_ERR_INTERNAL);
                return;
            }
            sy->m->exprs[sy->ents[e].emod].b = rot;
        }
        if (sy->ents[e].k >= M) pto__sy_unlink_ent(sy, e);
    }
    gr->nids = (uint8_t)M;
    sy->stats.degraded++;
}

/* No ids left at all, or (why: the reason) an id's reuse that no pair can
   order: a PIPE_ALL barrier where the wait was (and after the loop for a
   carried dependency) orders everything the pair ordered. */
static pto_status pto__sy_fallback(pto__sy *sy, int32_t g, const char *why)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e, n = sy->n_ents;
    char tiles[160];
    pto__sy_tiles(sy, gr, tiles, sizeof tiles);
    if (why)
        pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                    "sync: %s -> %s: PIPE_ALL barrier instead of a flag pair for %s: %s (%s)",
                    pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), tiles, pto_str(sy->ctx, gr->note), why);
    else
        pto_warning(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                    "sync: out of event ids for %s -> %s: PIPE_ALL barrier instead of a flag pair for %s: %s",
                    pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), tiles, pto_str(sy->ctx, gr->note));
    gr->note = pto__sy_prefixed(sy, why ? "PIPE_ALL (an id's reuse unordered): " : "PIPE_ALL (out of event ids): ", gr->note);
    gr->dst = PTO_PIPE_ALL;
    for (e = 0; e < n; e++) {
        int32_t s = sy->ents[e].stmt;
        if (sy->ents[e].grp != g || s < 0) continue;
        if (sy->ents[e].role == PTO__SY_WAIT && pto__sy_emit(sy, g, PTO__SY_BARRIER, s, 0, -1, -1, -1) < 0)
            return PTO_ERR_INTERNAL;
        if (sy->ents[e].role == PTO__SY_DRAIN && sy->ents[e].k == 0
            && pto__sy_emit(sy, g, PTO__SY_BARRIER, s, 1, -1, -1, -1) < 0)
            return PTO_ERR_INTERNAL;
    }
    for (e = 0; e < n; e++)   /* the pair's own statements, not the new barriers */
        if (sy->ents[e].grp == g) pto__sy_unlink_ent(sy, e);
    sy->stats.fallbacks++;
    return PTO_OK;
}

/* The set and wait statements of a one-id group (-1 when it has none left). */
static void pto__sy_ends(const pto__sy *sy, int32_t g, int32_t *set, int32_t *wait)
{
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    *set = *wait = -1;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) {
        if (sy->ents[e].stmt < 0) continue;
        if (sy->ents[e].role == PTO__SY_SET) *set = sy->ents[e].stmt;
        if (sy->ents[e].role == PTO__SY_WAIT) *wait = sy->ents[e].stmt;
    }
}

/* Ids already used by sync statements this run did not make are reserved
   for the whole kernel. */
static void pto__sy_reserved(pto__sy *sy, uint8_t used[8][8])
{
    const pto_module *m = sy->m;
    int32_t s;
    memset(used, 0, 64);
    for (s = 0; sy->user_flags && s < sy->s0 && s < m->n_stmts; s++) {   /* from s0 on: this run's */
        const pto_operand *a, *b, *c;
        int64_t base, mod, i;
        int32_t L;
        if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].block < 0) continue;
        if (m->blocks[m->stmts[s].block].kernel != sy->kernel) continue;
        if (m->stmts[s].op != PTO_OP_SET_FLAG && m->stmts[s].op != PTO_OP_WAIT_FLAG) continue;
        a = pto_stmt_arg(m, s, 0);
        b = pto_stmt_arg(m, s, 1);
        c = pto_stmt_arg(m, s, 2);
        if (!a || !b || !c || a->ref < 0 || a->ref > 7 || b->ref < 0 || b->ref > 7) continue;
        if (!pto__sy_idform(m, c->e[0], &base, &mod, &L)) continue;
        for (i = base; i < base + mod; i++)
            if (i >= 0 && i < 8) used[a->ref][b->ref] |= (uint8_t)(1u << i);
    }
}

/* The free ids base .. base + M - 1 (free from position lo on) for a group
   whose first set is at lo. An id reused after its previous wait in
   program order is not free in time unless a chain of flags orders that
   wait (on the consumer pipe) before the new set (on the producer pipe,
   which may run ahead: hardware.md section 4, a binary event). A reuse is
   sure when the previous lifetime ends before `fence` (pto__sy_order_pos:
   a flag pair of the reverse direction lies between); ids never used are
   sure too. Sure bases first, then those freed longest ago (ties: the
   lowest); *unsure is set when the base taken is not sure (then an order
   pair is made at once, pto__sy_order_now, or the CHECK analysis decides:
   pto__sy_order_reuse). */
static int32_t pto__sy_first_free(const int32_t *busy, uint8_t used, int32_t lo, int32_t M, int32_t lim, int32_t fence,
                                  int *unsure)
{
    int32_t b, i, best = -1, bage = 0;
    int bsure = 0;
    for (b = 0; b + M <= lim; b++) {
        int32_t age = -1, young = 0x7fffffff;
        int sure = 1;
        for (i = b; i < b + M; i++) {
            if ((used & (1u << i)) || busy[i] >= lo) break;
            if (busy[i] > age) age = busy[i];
            if (busy[i] < young) young = busy[i];
            if (busy[i] >= 0 && busy[i] >= fence) sure = 0;
        }
        /* not sure: the CHECK analysis may add an order pair from the
           previous wait to the new set, whose own id must be free in
           between: the shorter that stretch, the likelier */
        if (!sure) age = -young;
        if (i == b + M && (best < 0 || sure > bsure || (sure == bsure && age < bage))) best = b, bage = age, bsure = sure;
    }
    if (best >= 0 && !bsure) *unsure = 1;
    return best;
}

/* Whether every run of the block that holds statement at (its block or a
   block around it) runs wf's block at least once before reaching at's
   ancestor there: wf's block is such a block, or lies in the bodies of
   loops of literal trip count >= 1 only, the outermost of them in such a
   block. (A loop that may run zero times, or an if, breaks the chain.) The
   positions, checked by the caller, put wf before at. */
static int pto__sy_surely_runs(const pto_module *m, int32_t wf, int32_t at)
{
    int32_t y, x;
    for (y = wf; y >= 0; y = pto__sy_up(m, y)) {
        for (x = at; x >= 0 && m->stmts[x].block != m->stmts[y].block; x = pto__sy_up(m, x)) {}
        if (x >= 0) return 1;
        if (pto__sy_up(m, y) < 0 || m->stmts[pto__sy_up(m, y)].kind != PTO_ST_FOR
            || pto__sy_const_trips(m, pto__sy_up(m, y)) < 1)
            return 0;
    }
    return 0;
}

/* A carried group q -> p (coloured, ended before statement at) orders
   what its loop's sets follow on q before at's set on p when its loop's
   last iteration surely sets one of its ids and a drain of that id surely
   runs before at: then the last set of that id is a body set, after every
   statement before it on q. Returns the body set's position (the fence: a
   previous lifetime ending before it is ordered), -1 when it cannot tell
   (a loop that may run zero times leaves the prime as the last set, and a
   prime may have risen above anything). */
static int32_t pto__sy_carried_proof(const pto__sy *sy, int32_t g, int32_t at)
{
    const pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t e, set = -1, drain = -1;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) {
        int32_t x = sy->ents[e].stmt;
        if (x < 0 || x >= sy->n_pos) continue;
        if (sy->ents[e].role == PTO__SY_SET) set = x;
        if (sy->ents[e].role == PTO__SY_DRAIN) drain = x;
    }
    if (set < 0 || drain < 0 || !pto__sy_surely_runs(m, set, drain) || !pto__sy_surely_runs(m, drain, at)) return -1;
    return sy->pos[set];
}

/* The latest first position of a flag pair q -> p (forward, kept) that
   ends before position s and runs surely before statement at (at position
   s; pto__sy_surely_runs): an id of p -> q whose previous lifetime ended
   before it is surely reused in order (its wait on q, then that pair's set
   on q, its wait on p, then the new set on p). A pair in the loop between
   two loops that reuse an id is the usual case. -1 when none is found
   among the `budget` groups coloured just before (order[0 .. i) by first
   position): then the colouring cannot tell. */
static int32_t pto__sy_order_fr(const pto__sy *sy, int32_t g, const int32_t *lo, const int32_t *hi, int p, int q,
                                int32_t s, int32_t at)
{
    const pto_module *m = sy->m;
    const pto__sy_grp *fr = &sy->grps[g];
    int32_t sf, wf;
    if (fr->src != q || fr->dst != p || fr->base < 0 || hi[g] >= s) return -1;
    if (fr->kind == PTO__SY_LOOP) return pto__sy_carried_proof(sy, g, at);
    if (fr->kind != PTO__SY_FWD) return -1;
    pto__sy_ends(sy, g, &sf, &wf);
    if (sf < 0 || wf < 0 || m->stmts[sf].block != m->stmts[wf].block) return -1;
    return pto__sy_surely_runs(m, wf, at) ? lo[g] : -1;
}

static int32_t pto__sy_order_pos(const pto__sy *sy, const int32_t *order, int32_t i, const int32_t *lo, const int32_t *hi,
                                 int p, int q, int32_t s, int32_t at, int32_t cyc)
{
    int32_t k, budget = 24, best = -1;
    if (sy->ord_prev) {   /* order[i - 24 .. i) of the pair q -> p only (pto__sy_assign links them) */
        for (k = sy->ord_last[q * 8 + p]; k >= 0 && k >= i - budget; k = sy->ord_prev[k])
            if ((best = pto__sy_order_fr(sy, order[k], lo, hi, p, q, s, at)) >= 0) break;
    } else {
        for (k = i - 1; k >= 0 && budget > 0; k--, budget--)
            if ((best = pto__sy_order_fr(sy, order[k], lo, hi, p, q, s, at)) >= 0) break;
    }
    return best < 0 ? -1 : best < cyc ? best : cyc;
}

/* Inside a loop, an id the group takes from an earlier group of the same
   loop body is also reused the other way: the earlier group's set of the
   next iteration follows this group's wait, which nothing here shows
   ordered. So only lifetimes that ended before the outermost loop around
   statement at (its position) count as sure; 0x7fffffff outside loops. */
static int32_t pto__sy_cycle_pos(const pto__sy *sy, int32_t at)
{
    const pto_module *m = sy->m;
    int32_t x, L = -1;
    for (x = pto__sy_up(m, at); x >= 0; x = pto__sy_up(m, x))
        if (m->stmts[x].kind == PTO_ST_FOR) L = x;
    return L >= 0 && L < sy->n_pos ? sy->pos[L] : 0x7fffffff;
}

/* The first statement of group g (its first prime, or its set). */
static int32_t pto__sy_first_stmt(const pto__sy *sy, int32_t g)
{
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++)
        if (sy->ents[e].stmt >= 0 && sy->ents[e].role == (gr->kind == PTO__SY_LOOP ? PTO__SY_PRIME : PTO__SY_SET))
            return sy->ents[e].stmt;
    return -1;
}

/* No id is free for forward group g where its set is: the set may move
   later in its block, up to its wait, and an id may free up on the way (a
   wait of another pair of the same pipes ends that pair's lifetime). The
   set then goes right before the first statement where one is free: a set
   on p captures everything issued on p before it (and what is known to
   happen before p), so a later set still orders g's source and captures
   only more; g's wait, where the consumer blocks, does not move. The usual case: more loads in
   flight than ids, each with its own consumer further down. Returns the id
   base, or -1 when none frees up before the wait. */
static int32_t pto__sy_delay_set(pto__sy *sy, int32_t g, const int32_t *busy, uint8_t used, int32_t lim)
{
    pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t sg, wg, s, base;
    int unsure = 0;   /* the CHECK analysis decides such a reuse (pto__sy_order_reuse) */
    if (gr->kind != PTO__SY_FWD || gr->nids != 1) return -1;
    pto__sy_ends(sy, g, &sg, &wg);
    if (sg < 0 || wg < 0 || m->stmts[sg].block != m->stmts[wg].block) return -1;
    /* up to the wait itself: right before it, the set's id is busy for no
       statement at all, and the last pair to free one may end just there
       (the drains after a loop that used every id) */
    for (s = m->stmts[sg].next; s >= 0; s = m->stmts[s].next) {
        /* s >= n_pos: a fallback's barrier, added after the numbering */
        /* right after another pair's wait: a reuse the CHECK analysis decides */
        if (s < sy->n_pos && (base = pto__sy_first_free(busy, used, sy->pos[s], 1, lim, -1, &unsure)) >= 0) {
            sy->doubt |= unsure;
            pto_unlink(m, sg);
            pto_insert_before(m, s, sg);
            sy->stats.delayed++;
            return base;
        }
        if (s == wg) break;
    }
    return -1;
}

/* Statement a comes before statement b in their block. */
static int pto__sy_before(const pto_module *m, int32_t a, int32_t b)
{
    int32_t s;
    for (s = m->stmts[a].next; s >= 0; s = m->stmts[s].next)
        if (s == b) return 1;
    return 0;
}

/* What a shared pair costs (pto__sy_share, review28 L6): h's set moves
   after g's source, so h's wait on pipe `dst` (at wh) now waits for g's
   source, which g's own wait (wg, later in the block) waited for anyway.
   Only dst's work in between can start later: the first statement from wh
   to wg that issues on dst (a set_flag it sends, an op, a barrier; an if or
   loop, which may hold one), or -1 when there is none and the wait costs
   nothing. (A rotating pair is not asked: its producer runs ahead of the
   consumer by up to N - 1 iterations, so a later source of the same
   iteration is done by then, once the loop runs; measured, the cost is a
   constant at the loop's start and end, not per iteration.) */
static int32_t pto__sy_busy_between(const pto_module *m, int32_t wh, int32_t wg, int dst)
{
    int32_t s;
    for (s = m->stmts[wh].next; s >= 0 && s != wg; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        const pto_operand *a;
        if (st->kind == PTO_ST_FOR || st->kind == PTO_ST_IF || st->kind == PTO_ST_SECTION) return s;
        if (st->kind != PTO_ST_OP || st->op == PTO_OP_WAIT_FLAG) continue;   /* a wait is no work */
        if (st->op != PTO_OP_SET_FLAG && st->op != PTO_OP_PIPE_BARRIER) {
            if ((int)pto_stmt_pipe(m, s) == dst) return s;
            continue;
        }
        a = pto_stmt_arg(m, s, 0);
        if (!a || a->ref == dst || a->ref == PTO_PIPE_ALL) return s;
    }
    return -1;
}

/* No id for group g (forward with one id, or carried by a loop): rather
   than a PIPE_ALL barrier, it shares the pair of an earlier group h of the
   same pipes (and loop, and rotation M) whose set and wait come before
   g's, each pair in one block: h's set moves right after g's, so it
   captures g's source too, and g's consumer comes after h's wait on the
   destination pipe (in the same iteration for a forward pair; for a
   carried pair M iterations later, as g's own wait would: h's set of
   iteration i - M now follows g's source of that iteration, and its prime
   and drain sit where g's did). A set moved later captures only more, so
   what h ordered stays ordered, and h's id lifetime does not grow. Of the
   candidates, the one whose wait is latest: its consumer loses least by
   waiting for more. A rotating carried group tries this before its
   rotation degrades: the fused kernel that loads more x2 inputs than a
   pipe pair has ids for keeps its double buffering. Returns 0 when none
   fits. */
static int pto__sy_share(pto__sy *sy, int32_t g)
{
    pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t sg, wg, h, best = -1, bset = -1, bwait = -1, e;
    if (gr->kind != PTO__SY_LOOP && gr->kind != PTO__SY_FWD) return 0;
    pto__sy_ends(sy, g, &sg, &wg);
    if (sg < 0 || wg < 0) return 0;
    for (h = 0; h < sy->n_grps; h++) {
        const pto__sy_grp *hr = &sy->grps[h];
        int32_t sh, wh;
        if (h == g || hr->kind != gr->kind || hr->nids != gr->nids || hr->base < 0 || hr->src != gr->src || hr->dst != gr->dst
            || (gr->kind == PTO__SY_LOOP
                && (hr->loop != gr->loop || hr->anchor != gr->anchor || hr->dafter != gr->dafter || hr->pbefore != gr->pbefore))
            || (gr->kind == PTO__SY_FWD && gr->nids > 1 && hr->loop != gr->loop))   /* the same rotation */
            continue;
        pto__sy_ends(sy, h, &sh, &wh);
        if (sh < 0 || wh < 0 || m->stmts[sh].block != m->stmts[sg].block || m->stmts[wh].block != m->stmts[wg].block)
            continue;
        if (!pto__sy_before(m, sh, sg) || !pto__sy_before(m, wh, wg)) continue;
        if (gr->kind == PTO__SY_FWD && !pto__sy_before(m, sg, wh)) continue;   /* h's set must stay before its wait */
        if (best >= 0 && !pto__sy_before(m, bwait, wh)) continue;
        best = h, bset = sh, bwait = wh;
    }
    if (best < 0 || !pto__sy_grow(sy, (void **)&sy->shr, sizeof(int32_t), &sy->cap_shr, sy->n_shr + 3)) return 0;
    sy->shr[sy->n_shr++] = g;   /* reported by pto__sy_report_shares */
    sy->shr[sy->n_shr++] = best;
    sy->shr[sy->n_shr++] = gr->nids > 1 ? -1 : pto__sy_busy_between(m, bwait, wg, gr->dst);
    pto_unlink(m, bset);
    pto_insert_after(m, sg, bset);
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) pto__sy_unlink_ent(sy, e);
    if (sy->grps[g].nids > 1) sy->stats.rotating--;
    sy->grps[g].kind = PTO__SY_DEAD;
    sy->stats.flag_pairs--;
    sy->stats.shared++;
    return 1;
}

/* The cost clause of a shared pair's diagnostic (pto__sy_report_shares):
   busy is the first statement of the consumer pipe that now waits longer
   (pto__sy_busy_between), or -1. */
static void pto__sy_share_cost(pto__sy *sy, const pto__sy_grp *gr, const pto__sy_grp *hr, int32_t busy, int32_t n,
                               char *buf, size_t size)
{
    const pto_module *m = sy->m;
    const char *dst = pto_pipe_name((pto_pipe)gr->dst), *whose = n == 1 ? "this one's" : "their";
    const pto_stmt *st;
    int32_t name;
    if (busy < 0 && hr->nids > 1) {
        snprintf(buf, size, "its set_flag moves after %s source%s; the pair keeps its %d-id rotation, which hides the "
                 "later wait in every iteration but the first and the last", whose, n == 1 ? "" : "s", (int)hr->nids);
        return;
    }
    if (busy < 0) {
        snprintf(buf, size, "its set_flag moves after %s source%s; %s has no work between its wait and %s, so it "
                 "waits no longer", whose, n == 1 ? "" : "s", dst, n == 1 ? "this one's" : "theirs");
        return;
    }
    st = &m->stmts[busy];
    pto__sy_base_of(sy, busy);
    name = st->kind == PTO_ST_OP ? pto__sy_label_name(sy, busy) : -1;
    snprintf(buf, size, "its set_flag moves after %s source%s, so %s's work from %s%s%s (%s:%d) on waits for %s too",
             whose, n == 1 ? "" : "s", dst,
             st->kind == PTO_ST_FOR ? "the loop" : st->kind == PTO_ST_IF ? "the if"
                 : st->kind == PTO_ST_OP ? pto_opinfo_get((pto_op)st->op)->name : "the section",
             name != -1 ? " " : "", name != -1 ? pto_str(sy->ctx, name) : "", sy->base_name, (int)st->loc.line,
             n == 1 ? "it" : "them");
}

/* One diagnostic per pair that others share (pto__sy_share), at the first
   of them: a fused kernel with many x2 inputs would otherwise get one line
   per input and pipe pair. A warning when a sharer's consumer pipe has work
   that now waits longer (its first such statement named), else a note
   saying why it costs nothing (review28 L6: a warning reads as something
   to fix). */
static void pto__sy_report_shares(pto__sy *sy)
{
    int32_t i, j, n;
    for (i = 0; i < sy->n_shr; i += 3) {
        const pto__sy_grp *gr = &sy->grps[sy->shr[i]], *hr;
        int32_t h = sy->shr[i + 1], busy = -1;
        char names[200], what[400], cost[400];
        size_t len = 0;
        int cut = 0;
        if (h < 0) continue;   /* reported with an earlier one */
        hr = &sy->grps[h];
        names[0] = 0;
        for (n = 0, j = i; j < sy->n_shr; j += 3) {
            const char *t;
            if (sy->shr[j + 1] != h) continue;
            if (busy < 0) busy = sy->shr[j + 2];
            t = pto__sy_opname(sy, sy->grps[sy->shr[j]].bopnd);
            if (!cut && len + strlen(t) + 8 < sizeof names)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", n ? ", " : "", t);
            else if (!cut && (cut = 1))
                len += (size_t)snprintf(names + len, sizeof names - len, "%s...", n ? ", " : "");
            if (j > i) sy->shr[j + 1] = -1;
            n++;
        }
        if (n == 1) snprintf(what, sizeof what, "%s shares", pto_str(sy->ctx, gr->note));
        else snprintf(what, sizeof what, "%d flag pairs (for %s) share", (int)n, names);
        pto__sy_share_cost(sy, gr, hr, busy, n, cost, sizeof cost);
        (busy >= 0 ? pto_warning : pto_note)(sy->ctx, sy->m->stmts[gr->bstmt].loc,
                                             "sync: out of event ids for %s -> %s: %s the flag pair of %s (%s)",
                                             pto_pipe_name((pto_pipe)gr->src), pto_pipe_name((pto_pipe)gr->dst), what,
                                             pto_str(sy->ctx, hr->note), cost);
    }
    sy->n_shr = 0;
}

/* One walk of block b in program order: the positions of the final
   statements (pos, as pto__sy_number counts; pto__sy_delay_set reads
   them), each flag group's first and last position (lo, hi), and order[]
   gets the groups as their first statement is met. A placed statement s is
   entry s - s0 (pto__sy_emit makes one of each, in step). */
static int32_t pto__sy_walk(const pto__sy *sy, int32_t b, int32_t p, int32_t *lo, int32_t *hi, int32_t *order, int32_t *no)
{
    const pto_stmt *st = sy->m->stmts;
    int32_t *pos = sy->pos;
    const pto__sy_ent *ents = sy->ents;
    const pto__sy_grp *grps = sy->grps;
    uint32_t s0 = (uint32_t)sy->s0, ne = (uint32_t)sy->n_ents;
    int32_t s;
    for (s = sy->m->blocks[b].head; s >= 0; s = st[s].next, p++) {
        uint32_t e = (uint32_t)s - s0;   /* wraps for the kernel's own statements */
        pos[s] = p;
        if (e < ne && ents[e].stmt == s) {
            int32_t g = ents[e].grp;
            if (grps[g].kind != PTO__SY_BAR && grps[g].kind != PTO__SY_DEAD) {
                if (hi[g] < 0) { lo[g] = p; order[(*no)++] = g; }
                hi[g] = p;
            }
        }
        if (st[s].body >= 0) p = pto__sy_walk(sy, st[s].body, p + 1, lo, hi, order, no) - 1;
        if (st[s].orelse >= 0) p = pto__sy_walk(sy, st[s].orelse, p + 1, lo, hi, order, no) - 1;
    }
    return p;
}

/* The position of the last statement of s's subtree (pto__sy_walk's). */
static int32_t pto__sy_end_pos(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    for (;;) {
        int32_t ob = m->stmts[s].orelse, bb = m->stmts[s].body, t = -1;
        if (ob >= 0 && m->blocks[ob].tail >= 0) t = m->blocks[ob].tail;
        else if (bb >= 0 && m->blocks[bb].tail >= 0) t = m->blocks[bb].tail;
        if (t < 0 || t >= sy->n_pos) return sy->pos[s];
        s = t;
    }
}

/* The ids of pipe pair (src, dst) ran short for a group starting at lo:
   the drains that pto__sy_sink moved down past lo go back right after
   their anchors (where they would have been without it: the order they
   give is only earlier, and there they were deadlock-free), which frees
   their ids from there on. A kernel whose consecutive loops rotate many
   ids of one pair keeps its rotations instead of a degraded one. Returns
   whether a drain moved. */
static int pto__sy_unsink(pto__sy *sy, int src, int dst, int32_t lo, int32_t *bz, const int32_t *hi)
{
    pto_module *m = sy->m;
    int32_t h, e, j, end;
    int moved = 0;
    for (h = 0; h < sy->n_grps; h++) {
        pto__sy_grp *hr = &sy->grps[h];
        if (hr->kind != PTO__SY_LOOP || hr->base < 0 || hr->src != src || hr->dst != dst || hr->dafter == hr->anchor
            || hi[h] < lo || (end = pto__sy_end_pos(sy, hr->anchor)) >= lo)
            continue;
        for (e = hr->e0; e < hr->e0 + hr->ne; e++)   /* each right after it, as pto__sy_place put them */
            if (sy->ents[e].role == PTO__SY_DRAIN && sy->ents[e].stmt >= 0) {
                pto_unlink(m, sy->ents[e].stmt);
                pto_insert_after(m, hr->anchor, sy->ents[e].stmt);
            }
        hr->dafter = hr->anchor;
        for (j = hr->base; j < hr->base + hr->nids && j < 8; j++)
            if (bz[j] == hi[h]) bz[j] = end;
        moved = 1;
    }
    return moved;
}

/* The primes of group g that pto__sy_rise moved up its block go back right
   before its anchor (where they would be without it): set later on their
   in-order pipe, they capture all they captured up there and more, so
   every dependency stays ordered with no new analysis. Frees the pair's
   ids from its first statement to the anchor. */
static void pto__sy_unrise(pto__sy *sy, int32_t g)
{
    pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++)   /* in their order */
        if (sy->ents[e].role == PTO__SY_PRIME && sy->ents[e].stmt >= 0) {
            pto_unlink(sy->m, sy->ents[e].stmt);
            pto_insert_before(sy->m, gr->anchor, sy->ents[e].stmt);
        }
    gr->pbefore = gr->anchor;
}

/* A group whose primes pto__sy_rise moved up is coloured where it would
   be without that (its anchor's place: rise[g] keeps its first statement's),
   so the groups it passed keep their ids and a short pair takes back only
   that rise (pto__sy_unrise). Puts it there in `order` (few move, and not
   far: one loop at most). */
static void pto__sy_rise_order(pto__sy *sy, int32_t *lo, int32_t *rise, int32_t *order, int32_t n)
{
    int32_t i, j, g;
    for (i = 0; i < n; i++) {
        const pto__sy_grp *gr = &sy->grps[order[i]];
        g = order[i];
        rise[g] = lo[g];
        if (gr->kind != PTO__SY_LOOP || gr->pbefore == gr->anchor || lo[g] == 0x7fffffff) continue;
        lo[g] = sy->pos[gr->anchor];
    }
    for (i = 1; i < n; i++) {   /* insertion sort by lo, stable */
        g = order[i];
        for (j = i; j > 0 && lo[order[j - 1]] > lo[g]; j--) order[j] = order[j - 1];
        order[j] = g;
    }
}

/* The note of an order pair: which reuse it orders. */
static int32_t pto__sy_order_note(pto__sy *sy, int32_t key, int32_t s, int32_t w)
{
    pto__sy_txt t;
    t.n = 0;
    PTO__SY_LIT(&t, "order: id ");
    pto__sy_num(&t, (unsigned long long)(key % 8), 10, 0);
    PTO__SY_LIT(&t, " of ");
    pto__sy_cat(&t, pto_pipe_name((pto_pipe)(key / 64)));
    PTO__SY_LIT(&t, " -> ");
    pto__sy_cat(&t, pto_pipe_name((pto_pipe)(key / 8 % 8)));
    PTO__SY_LIT(&t, " is set again at ");
    pto__sy_base_of(sy, s);
    pto__sy_put(&t, sy->base_name, sy->base_len);
    PTO__SY_LIT(&t, ":");
    pto__sy_num(&t, pto__sy_line(sy, s), 10, 0);
    PTO__SY_LIT(&t, "; its previous wait (");
    pto__sy_base_of(sy, w);
    pto__sy_put(&t, sy->base_name, sy->base_len);
    PTO__SY_LIT(&t, ":");
    pto__sy_num(&t, pto__sy_line(sy, w), 10, 0);
    PTO__SY_LIT(&t, ") must come first");
    return pto__sy_note(sy, &t);
}

/* Whether b's access (record rb) of every iteration of loop L conflicts
   with a's (ra) dist iterations later: then that dependency, which the
   analysis ordered like every other, chains b's pipe before a's from any
   iteration on. Only local tiles whose slot is known from L's iteration
   (rotating with L, or one slot); and, when L is itself in a loop, one
   slot each (a new run of L restarts the rotation: dist no longer holds). */
static int pto__sy_recurs(const pto__sy *sy, int32_t L, int32_t rb, int32_t ra, int32_t dist)
{
    const pto_module *m = sy->m;
    int32_t ob = sy->recs[rb].opnd, oa = sy->recs[ra].opnd, nb, na, ph;
    int rotb, rota;
    int64_t per;
    if (m->operands[ob].kind != PTO_O_TILE || m->operands[oa].kind != PTO_O_TILE) return 0;
    nb = pto__sy_slots(&m->tiles[m->operands[ob].ref]);
    na = pto__sy_slots(&m->tiles[m->operands[oa].ref]);
    rotb = sy->tile_loop[m->operands[ob].ref] == L && nb > 1;
    rota = sy->tile_loop[m->operands[oa].ref] == L && na > 1;
    if ((!rotb && nb > 1) || (!rota && na > 1)) return 0;
    if ((rota || rotb) && pto_stmt_loop(m, L) >= 0) return 0;
    per = pto__sy_lcm(rota ? na : 1, rotb ? nb : 1);
    for (ph = 0; ph < per; ph++)
        if (!pto__sy_conflict(sy, sy->rec_of[ob] + (rotb ? ph % nb : 0), sy->rec_of[oa] + (rota ? (ph + dist) % na : 0)))
            return 0;
    return 1;
}

/* A group in a loop sets its id again: a forward group every M iterations
   (its rotation, pto__sy_fwd_rotation), a carried group in the iteration
   whose wait took the previous set of that id. What orders that wait
   before that set is the chain from the group's consumer b (right after
   the wait, on q) through the dependency b -> a to its producer a (right
   before the set, on p). The colouring counts it as shown only when
   - the set and wait are in the loop's body and a and b surely run there
     (not in an if: tests/ok/guarded_window.pto, tests/sweep/sparse_if.pto);
   - b -> a is a dependency in every iteration (pto__sy_recurs, dist M for
     a forward group, 0 for a carried one);
   - a carried group's primes and drains are in no loop (their next run
     would follow its drains unordered: tests/sweep/anchor_if.pto).
   An order pair in a loop has no accesses of its own: never shown. 0 when
   not shown (then the proving analysis runs: pto__sy_order_reuse). */
static int pto__sy_self_sure(const pto__sy *sy, int32_t g)
{
    const pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t set, wait, L;
    if (gr->kind != PTO__SY_FWD && gr->kind != PTO__SY_LOOP) return 1;
    if (gr->kind == PTO__SY_LOOP && pto_stmt_loop(m, gr->anchor) >= 0) return 0;
    pto__sy_ends(sy, g, &set, &wait);
    if (set < 0 || wait < 0 || (L = pto_stmt_loop(m, set)) < 0) return 1;
    if (gr->arec < 0 || gr->brec < 0 || gr->bstmt < 0) return 0;
    if (m->stmts[set].block != m->stmts[L].body || m->stmts[wait].block != m->stmts[L].body) return 0;
    if (!pto__sy_surely_runs(m, sy->recs[gr->arec].stmt, set) || !pto__sy_surely_runs(m, gr->bstmt, wait)) return 0;
    return pto__sy_recurs(sy, L, gr->brec, gr->arec, gr->kind == PTO__SY_FWD ? gr->nids : 0);
}

/* The link a flag group g makes in a chain (pto__sy_chain_fr): *set, the
   statement on its source pipe that every use of its ids follows, and
   *wait, one on its destination pipe that waits for it. A one-block
   forward pair: its set and wait. A carried pair: its first prime (all
   come together: the colouring runs before any moves them back) and its
   body wait, whose first run consumes a prime. 0 when g makes no link. */
static int pto__sy_link(const pto__sy *sy, int32_t g, int32_t *set, int32_t *wait)
{
    const pto_module *m = sy->m;
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    if (gr->base < 0) return 0;
    if (gr->kind == PTO__SY_FWD) {
        pto__sy_ends(sy, g, set, wait);
        return *set >= 0 && *wait >= 0 && *set < sy->n_pos && *wait < sy->n_pos
               && m->stmts[*set].block == m->stmts[*wait].block;
    }
    if (gr->kind != PTO__SY_LOOP) return 0;
    *set = *wait = -1;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) {
        int32_t x = sy->ents[e].stmt;
        if (x < 0) continue;
        if (x >= sy->n_pos) return 0;
        if (sy->ents[e].role == PTO__SY_PRIME && (*set < 0 || sy->pos[x] < sy->pos[*set])) *set = x;
        if (sy->ents[e].role == PTO__SY_WAIT) *wait = x;
    }
    return *set >= 0 && *wait >= 0;
}

/* A chain of two flag groups q -> r and r -> p (r a third pipe; each a
   one-block forward pair or a carried pair: pto__sy_link): the first's
   wait precedes the second's set on r, both run surely
   (pto__sy_surely_runs) and the second's wait comes before position s and
   surely before statement at. Then a lifetime of p -> q whose last wait (on q)
   came before the first group's set (on q) is surely over before at's set
   on p: q runs the old wait, then that set; r waits for it, then sets the
   second group; p waits for that, then reaches at. The bench's usual case:
   MTE3 -> MTE2 ids reused over a loop whose loads and stores meet in V; with
   carried links, a loop's ids reused two loops later, ordered through the
   later loop's primes (review26 A-M3).
   Returns the first group's set position (the fence), -1 when g1 makes no
   such chain with the second group's set sf2. */
static int32_t pto__sy_chain_fr(const pto__sy *sy, int32_t g1, int32_t sf2)
{
    const pto_module *m = sy->m;
    int32_t sf, wf;
    if (!pto__sy_link(sy, g1, &sf, &wf)) return -1;
    if (m->stmts[wf].block == m->stmts[sf2].block) return pto__sy_before(m, wf, sf2) ? sy->pos[sf] : -1;
    return sy->pos[wf] < sy->pos[sf2] && pto__sy_surely_runs(m, wf, sf2) ? sy->pos[sf] : -1;
}

/* Whether such a chain, of the `budget` groups of each pair coloured last,
   has its first set after position need. */
static int pto__sy_chain_pos(const pto__sy *sy, const int32_t *order, int32_t i, int p, int q,
                             int32_t s, int32_t at, int32_t need)
{
    int32_t r, k, k1, budget = 24;
    if (!sy->ord_prev) return 0;
    for (r = 0; r < 8; r++) {
        if (r == p || r == q) continue;
        for (k = sy->ord_last[r * 8 + p]; k >= 0 && k >= i - budget; k = sy->ord_prev[k]) {
            int32_t sf2, wf2;
            if (!pto__sy_link(sy, order[k], &sf2, &wf2) || sy->pos[wf2] >= s || sy->pos[wf2] <= need) continue;
            if (!pto__sy_surely_runs(sy->m, wf2, at)) continue;
            /* order[] goes by first position: the first chain found is the latest */
            for (k1 = sy->ord_last[q * 8 + r]; k1 >= 0 && k1 >= i - budget; k1 = sy->ord_prev[k1]) {
                int32_t f = pto__sy_chain_fr(sy, order[k1], sf2);
                if (f > need) return 1;
                if (f >= 0) break;
            }
        }
    }
    return 0;
}

/* The colouring took ids base .. base + M - 1 not sure by pto__sy_order_pos
   (fence): whether a chain through a third pipe (pto__sy_chain_pos) shows
   each of their previous lifetimes over before the new set after all, so
   the CHECK analysis need not run for it. Only lifetimes that ended before
   the outermost loop around at count (cyc, as pto__sy_order_pos). */
static int pto__sy_chain_sure(const pto__sy *sy, const int32_t *order, int32_t i, const int32_t *bz,
                              int32_t base, int32_t M, int32_t fence, int32_t s, int32_t at, int32_t cyc, int p, int q)
{
    int32_t j, need = -1;
    for (j = base; j < base + M; j++)
        if (bz[j] >= 0 && bz[j] >= fence && bz[j] > need) need = bz[j];
    if (need < 0) return 1;
    return at >= 0 && need < cyc && pto__sy_chain_pos(sy, order, i, p, q, s, at, need);
}

/* The base pto__sy_first_free took is not sure and no chain shows it
   (pto__sy_chain_sure): another free base that a chain does show, so no
   order pair need come (review26 A-M3: after a loop of x4 the youngest ids
   were those of that loop, which nothing ordered before the next loop's
   sets, while the loop before it had ids its primes order). Of those, the
   one freed longest ago (ties: the lowest); -1 when none. */
static int32_t pto__sy_chain_free(const pto__sy *sy, const int32_t *order, int32_t i, const int32_t *bz, uint8_t used,
                                  int32_t M, int32_t lim, int32_t fence, int32_t s, int32_t at, int32_t cyc, int p, int q)
{
    int32_t b, j, best = -1, bage = 0;
    for (b = 0; b + M <= lim; b++) {
        int32_t age = -1;
        for (j = b; j < b + M; j++) {
            if ((used & (1u << j)) || bz[j] >= s) break;
            if (bz[j] > age) age = bz[j];
        }
        if (j < b + M || (best >= 0 && age >= bage)) continue;
        if (pto__sy_chain_sure(sy, order, i, bz, b, M, fence, s, at, cyc, p, q)) best = b, bage = age;
    }
    return best;
}

/* pto__sy_order_pos looks back at the groups of one pair among the 24
   coloured last: each place of the order linked to the one before of its
   pair, so the others are not looked at. Out of memory: no links (it looks
   at all 24). */
static void pto__sy_link_pairs(pto__sy *sy, const int32_t *order, int32_t n)
{
    int32_t k, last[64];
    for (k = 0; k < 64; k++) last[k] = sy->ord_last[k] = -1;
    pto_free(sy->ctx, sy->ord_prev);
    if (!(sy->ord_prev = (int32_t *)pto__alloc_quiet(sy->ctx, sizeof(int32_t) * 2 * ((size_t)n + 1)))) return;
    for (k = 0; k < n; k++) {
        int32_t pair = sy->grps[order[k]].src * 8 + sy->grps[order[k]].dst;
        sy->ord_prev[k] = last[pair];
        sy->ord_prev[n + k] = pair;
        last[pair] = k;
    }
}

/* Colours the lifetimes of the flag groups of one kernel with hardware ids,
   pair by pair, greedily in program order of their first statements
   (optimal for intervals; creation order for a group with none left). */
static pto_status pto__sy_assign(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t *lo, *hi, *order, *rise, g, e, i, j, n = 0;
    uint8_t used[8][8];
    int32_t busy[8][8][8];   /* per id: the last lifetime's end */
    pto_status st = PTO_OK;
    sy->pos = (int32_t *)pto__sy_reuse(sy, (void **)&sy->pos, sizeof(int32_t) * ((size_t)m->n_stmts + 1), 1);
    sy->n_pos = m->n_stmts;   /* statements a fallback adds later have no position */
    sy->n_dep = 0;   /* the depths are those of the analysis' statements */
    sy->n_idc = sy->cap_idc = 0;   /* the analysis' decoded ids make lo .. rise */
    lo = (int32_t *)pto__sy_reuse(sy, (void **)&sy->idc, sizeof(int32_t) * ((size_t)sy->n_grps + 1) * 4, 0);
    if (!lo || !sy->pos) {
        pto_free(sy->ctx, lo);
        pto_error(sy->ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
        return PTO_ERR_INTERNAL;
    }
    hi = lo + sy->n_grps + 1;
    order = hi + sy->n_grps + 1;
    rise = order + sy->n_grps + 1;
    for (g = 0; g < sy->n_grps; g++) hi[g] = -1;
    pto__sy_walk(sy, m->kernels[sy->kernel].body, 0, lo, hi, order, &n);
    for (g = 0; g < sy->n_grps; g++)
        if (hi[g] < 0 && sy->grps[g].kind != PTO__SY_BAR && sy->grps[g].kind != PTO__SY_DEAD) {
            lo[g] = 0x7fffffff;
            order[n++] = g;
        }
    pto__sy_rise_order(sy, lo, rise, order, n);
    pto__sy_reserved(sy, used);
    for (i = 0; i < 8; i++)
        for (j = 0; j < 64; j++) busy[i][j / 8][j % 8] = -1;
    pto__sy_link_pairs(sy, order, n);
    for (i = 0; st == PTO_OK && i < n; i++) {
        pto__sy_grp *gr = &sy->grps[order[i]];
        int32_t lim = pto__sy_limit(sy, gr->src, gr->dst), M = gr->nids, base;
        if (i > 0 && sy->ord_prev) sy->ord_last[sy->ord_prev[n + i - 1]] = i - 1;
        int32_t *bz = busy[gr->src][gr->dst], at = pto__sy_first_stmt(sy, order[i]), fence = -1, cyc = 0, S;
        uint8_t u = used[gr->src][gr->dst];
        int reused = 0, unsure = 0;
        for (j = 0; j < lim; j++) reused |= bz[j] >= 0;
        base = -1;
        if (reused && at >= 0) cyc = pto__sy_cycle_pos(sy, at);
        S = rise[order[i]];
        if (gr->kind == PTO__SY_LOOP && gr->pbefore != gr->anchor) {   /* its ids from its primes on, or it goes down */
            if (reused && at >= 0) fence = pto__sy_order_pos(sy, order, i, lo, hi, gr->src, gr->dst, S, at, cyc);
            base = pto__sy_first_free(bz, u, S, M, lim, fence, &unsure);
            if (base < 0) pto__sy_unrise(sy, order[i]);
        }
        if (base < 0) {
            /* (unrisen: its primes are right before the anchor, the same block) */
            S = lo[order[i]];
            fence = reused && at >= 0 ? pto__sy_order_pos(sy, order, i, lo, hi, gr->src, gr->dst, S, at, cyc) : -1;
            base = pto__sy_first_free(bz, u, S, M, lim, fence, &unsure);
        }
        if (base < 0 && pto__sy_unsink(sy, gr->src, gr->dst, lo[order[i]], bz, hi))
            base = pto__sy_first_free(bz, u, S, M, lim, fence, &unsure);
        if (base < 0 && M > 1 && pto__sy_share(sy, order[i])) continue;
        while (base < 0 && M > 1) {
            /* primes and drains moved out of the loop (pto__sy_anchor) keep each id
               alternating over the whole nest, which pairs a run's first waits with
               the previous run's last sets of the same id: right only while the
               slots that conflict stay a union of the ids' classes, so the rotation
               may only shrink to a divisor of itself (x3 -> 2 left a WAW unordered) */
            M = M > 2 && (gr->anchor == gr->loop || gr->nids % 2 == 0) ? 2 : 1;
            base = pto__sy_first_free(bz, u, S, M, lim, fence, &unsure);
        }
        if (base < 0 && M == 1) base = pto__sy_delay_set(sy, order[i], bz, u, lim);
        else if (unsure && !pto__sy_chain_sure(sy, order, i, bz, base, M, fence, S, at, cyc, gr->src, gr->dst)) {
            int32_t b2 = pto__sy_chain_free(sy, order, i, bz, u, M, lim, fence, S, at, cyc, gr->src, gr->dst);
            if (b2 >= 0) base = b2;
            else sy->doubt = 1;   /* the CHECK analysis orders that reuse if no chain of flags does */
        }
        if (base < 0 && M == 1 && gr->nids == 1 && pto__sy_share(sy, order[i])) continue;
        if (base < 0) { st = pto__sy_fallback(sy, order[i], NULL); continue; }
        if (M < gr->nids) pto__sy_degrade(sy, order[i], M);
        gr->base = base;
        if (!pto__sy_self_sure(sy, order[i])) sy->doubt = 1;
        for (j = base; j < base + M; j++) bz[j] = hi[order[i]];
    }
    pto_free(sy->ctx, sy->ord_prev);
    sy->ord_prev = NULL;
    pto__sy_report_shares(sy);
    for (e = 0; st == PTO_OK && e < sy->n_ents; e++) {
        pto__sy_ent *en = &sy->ents[e];
        if (en->stmt >= 0 && en->ebase >= 0 && sy->grps[en->grp].base >= 0)
            m->exprs[en->ebase].value = sy->grps[en->grp].base + (en->k > 0 ? en->k : 0);
    }
    pto_free(sy->ctx, lo);
    return st;
}

/* The notes of every group the analysis placed and kept, and those of
   their statements: the lengths first (labels counted once per statement;
   a group's is kept in its pnote meanwhile), then one reservation of the
   string pool and its offsets, then each note written in place at the
   pool's end and its prime / drain forms copied from it. */
static int32_t pto__sy_commit(pto__sy *sy, size_t n)
{
    pto_ctx *ctx = sy->ctx;   /* pto__str_add's tail: the text is in place */
    int32_t id = ctx->n_strs;
    ctx->str_off[id] = (int32_t)ctx->pool_len;
    ctx->pool[ctx->pool_len + n] = 0;
    ctx->pool_len += n + 1;
    ctx->str_off[id + 1] = (int32_t)ctx->pool_len;
    ctx->n_strs = id + 1;
    return id;
}

static pto_status pto__sy_notes(pto__sy *sy)
{
    pto_ctx *ctx = sy->ctx;
    size_t total = 0, n, want;
    int32_t g, e, nstr = 0;
    int k;
    static const char prefix[2][8] = {"prime: ", "drain: "};
    void *p;
    for (k = 0; k < PTO_NSPACE; k++) sy->splen[k] = (uint8_t)strlen(pto_space_name((pto_space)k));
    sy->n_lab = sy->s0;
    /* the analysis is over: its per-statement times (as many) make them */
    sy->lab_len = (int32_t *)pto__sy_reuse(sy, (void **)&sy->tstart, sizeof(int32_t) * ((size_t)sy->n_lab + 1), 1);
    sy->lab = (int32_t *)pto__sy_reuse(sy, (void **)&sy->tend, sizeof(int32_t) * ((size_t)sy->n_lab + 1), 0);
    if (!sy->lab_len || !sy->lab) goto oom;
    for (g = 0; g < sy->n_grps; g++) {
        pto__sy_grp *gr = &sy->grps[g];
        if (gr->kind == PTO__SY_DEAD) continue;
        n = pto__sy_dep_len(sy, gr->arec, gr->brec, gr->carried);
        gr->pnote = n > PTO__SY_NOTEMAX ? -1 : (int32_t)n;
        if (n > PTO__SY_NOTEMAX) n = PTO__SY_NOTEMAX;
        total += n + 1;
        nstr++;
        if (gr->kind == PTO__SY_LOOP) {
            n = n + 7 > PTO__SY_NOTEMAX ? PTO__SY_NOTEMAX : n + 7;
            total += 2 * (n + 1);
            nstr += 2;
        }
    }
    want = ctx->pool_len + total + 1;
    if (ctx->pool_cap < want) {
        if (!(p = pto_realloc(ctx, ctx->pool, want))) goto oom;
        ctx->pool = (char *)p;
        ctx->pool_cap = want;
    }
    if (ctx->cap_strs < ctx->n_strs + nstr + 2) {
        if (ctx->n_strs + (size_t)nstr + 2 > (size_t)INT32_MAX / 2
            || !(p = pto_realloc(ctx, ctx->str_off, sizeof(int32_t) * (size_t)(ctx->n_strs + nstr + 2))))
            goto oom;
        ctx->str_off = (int32_t *)p;
        ctx->cap_strs = ctx->n_strs + nstr + 2;
    }
    for (g = 0; g < sy->n_grps; g++) {
        pto__sy_grp *gr = &sy->grps[g];
        char *w = ctx->pool + ctx->pool_len;
        if (gr->kind == PTO__SY_DEAD) continue;
        if (gr->pnote >= 0) {
            n = (size_t)(pto__sy_dep_w(sy, gr->arec, gr->brec, gr->carried, w) - w);
            if (n != (size_t)gr->pnote) {   /* the count was wrong: the pool may be overrun */
                pto_error(ctx, *pto__sy_noloc(), "sync: internal: a note of %d bytes counted as %d", (int)n, (int)gr->pnote);
                pto__sy_fail(sy, PTO_ERR_INTERNAL);
                return PTO_ERR_INTERNAL;
            }
        } else {   /* cut at 599 bytes */
            pto__sy_txt t;
            t.n = 0;
            pto__sy_dep_text(sy, gr->arec, gr->brec, gr->carried, &t);
            n = t.n;
            memcpy(w, t.d, n);
        }
        gr->note = pto__sy_commit(sy, n);
        if (gr->kind != PTO__SY_LOOP) continue;
        if (n > PTO__SY_NOTEMAX - 7) n = PTO__SY_NOTEMAX - 7;
        for (k = 0; k < 2; k++) {
            w = ctx->pool + ctx->pool_len;
            memcpy(w, prefix[k], 7);
            memcpy(w + 7, ctx->pool + ctx->str_off[gr->note], n);
            if (k == 0) gr->pnote = pto__sy_commit(sy, n + 7);
            else gr->dnote = pto__sy_commit(sy, n + 7);
        }
    }
    sy->noted = 1;
    for (g = 0; g < sy->n_grps; g++) {   /* a group's entries are ents[e0 .. e0 + ne) */
        const pto__sy_grp *gr = &sy->grps[g];
        if (gr->kind == PTO__SY_DEAD) continue;
        for (e = gr->e0; e < gr->e0 + gr->ne; e++) {
            const pto__sy_ent *en = &sy->ents[e];
            if (en->stmt >= 0)
                sy->m->stmts[en->stmt].note = en->role == PTO__SY_PRIME ? gr->pnote
                                              : en->role == PTO__SY_DRAIN ? gr->dnote : gr->note;
        }
    }
    pto_free(ctx, sy->lab);
    pto_free(ctx, sy->lab_len);
    sy->lab = sy->lab_len = NULL;
    sy->n_lab = 0;
    return PTO_OK;
oom:
    pto_error(ctx, *pto__sy_noloc(), "out of memory in the sync inserter");
    pto__sy_fail(sy, PTO_ERR_INTERNAL);
    return PTO_ERR_INTERNAL;
}

/* ---- driver ----------------------------------------------------------------------- */

/* Dependencies placed so far, (record, operand) pairs in a hash set: one
   found twice means a placement did not order it. */
/* The entry of dependency (record rec, operand opnd), or NULL. */
static pto__sy_seen_e *pto__sy_seen_at(const pto__sy *sy, int32_t rec, int32_t opnd)
{
    int32_t i;
    if (opnd < 0 || opnd >= sy->cap_seen_head) return NULL;
    for (i = sy->seen_head[opnd]; i >= 0; i = sy->seen[i].next)
        if (sy->seen[i].rec == rec) return &sy->seen[i];
    return NULL;
}

static int pto__sy_seen(pto__sy *sy)
{
    int32_t o = sy->h_bopnd, i, old = sy->cap_seen_head;
    pto__sy_seen_e *e;
    if (o >= sy->cap_seen_head) {
        /* o is an access's operand (< n_opnd0): one step to them all, not
           doublings past them that would be filled with -1 too */
        if (o < sy->n_opnd0) pto__sy_prealloc(sy, (void **)&sy->seen_head, sizeof(int32_t), &sy->cap_seen_head, (size_t)sy->n_opnd0);
        if (!pto__sy_grow(sy, (void **)&sy->seen_head, sizeof(int32_t), &sy->cap_seen_head, o + 1)) return 0;
        for (i = old; i < sy->cap_seen_head; i++) sy->seen_head[i] = -1;
    }
    if ((e = pto__sy_seen_at(sy, sy->h_rec, o)) != NULL) {
        if (!e->dropped) return 1;
        e->dropped = 0;
        if (e->again < 255) e->again++;
        return 0;
    }
    if (!pto__sy_grow(sy, (void **)&sy->seen, sizeof(pto__sy_seen_e), &sy->cap_seen, sy->n_seen + 1)) return 0;
    sy->seen[sy->n_seen].rec = sy->h_rec;
    sy->seen[sy->n_seen].dropped = 0;
    sy->seen[sy->n_seen].again = 0;
    sy->seen[sy->n_seen].next = sy->seen_head[o];
    sy->seen_head[o] = sy->n_seen++;
    return 0;
}

/* A dropped group's dependency may be found and placed again. */
static void pto__sy_unseen(pto__sy *sy, int32_t rec, int32_t opnd)
{
    pto__sy_seen_e *e = pto__sy_seen_at(sy, rec, opnd);
    if (e) e->dropped = 1;
}

/* Whether group g's dependency was placed again after a drop
   PTO__SY_REPLACE times: it is not dropped any more. Two forward pairs that
   each made the other's loop stale were dropped and placed in turn without
   end (test_sync_random seed 2031: 2 groups per re-analysis, for ever);
   keeping a pair is safe (it orders what it ordered) and ends that. A drop
   usually pays off (the new analysis finds the pair implied), so a few
   are allowed first: with 1, 17 of 2,000 random kernels kept a pair more. */
static int pto__sy_placed_again(const pto__sy *sy, int32_t g)
{
    const pto__sy_seen_e *e = pto__sy_seen_at(sy, sy->grps[g].arec, sy->grps[g].bopnd);
    return e && e->again >= PTO__SY_REPLACE;
}

/* Book-keeping for the group just placed. */
static void pto__sy_counted(pto__sy *sy)
{
    const pto__sy_grp *gr = &sy->grps[sy->n_grps - 1];
    if (gr->kind != PTO__SY_BAR) {
        sy->stats.flag_pairs++;
        if (gr->nids > 1) sy->stats.rotating++;
    }
    if (gr->kind == PTO__SY_LOOP) sy->period[gr->loop] = (int32_t)pto__sy_lcm(sy->period[gr->loop], gr->nids);
    sy->nkeys = PTO__SY_REAL + PTO__SY_MAXROT * sy->n_grps;
    sy->stats.rounds++;
}

/* Room for what insertion will probably add, so that the module's arrays
   do not grow by doubling copies while placing: per access statement the
   bench kernels get 2.8 statements, 3.3 operands (3 per flag pair and id,
   the pairs' waits and drains share them), 1.7 expressions, 1.2 groups and
   2.8 entries; a little more is reserved. Best effort: a failed
   reservation is no error (they still grow on demand), and the untouched
   tail of a reservation costs no page faults, though it is requested. The
   notes have their own exact reservation (pto__sy_notes). */
static void pto__sy_reserve(pto__sy *sy, size_t nacc)
{
    pto_module *m = sy->m;
    pto_ctx *ctx = sy->ctx;
    size_t want;
    void *p;
    if (nacc < 64) return;
    want = (size_t)m->n_stmts + 3 * nacc;
    if (want < (size_t)INT32_MAX / 2 && (size_t)m->cap_stmts < want && (p = pto__realloc_quiet(ctx, m->stmts, want * sizeof *m->stmts))) {
        m->stmts = (pto_stmt *)p;
        m->cap_stmts = (int32_t)want;
    }
    want = (size_t)m->n_operands + 3 * nacc + nacc / 2;
    if (want < (size_t)INT32_MAX / 2 && (size_t)m->cap_operands < want
        && (p = pto__realloc_quiet(ctx, m->operands, want * sizeof *m->operands))) {
        m->operands = (pto_operand *)p;
        m->cap_operands = (int32_t)want;
    }
    want = (size_t)m->n_exprs + 2 * nacc - nacc / 5;
    if (want < (size_t)INT32_MAX / 2 && (size_t)m->cap_exprs < want && (p = pto__realloc_quiet(ctx, m->exprs, want * sizeof *m->exprs))) {
        m->exprs = (pto_expr *)p;
        m->cap_exprs = (int32_t)want;
    }
    pto__sy_prealloc(sy, (void **)&sy->grps, sizeof *sy->grps, &sy->cap_grps, nacc + nacc / 4);
    pto__sy_prealloc(sy, (void **)&sy->ents, sizeof *sy->ents, &sy->cap_ents, 3 * nacc);
}

/* The preorder position just past statement s's subtree, doubled (the
   positions of the last analysis: pto__sy_tables). */
static int32_t pto__sy_end2(const pto__sy *sy, int32_t s)
{
    const pto_module *m = sy->m;
    for (;;) {
        int32_t ob = m->stmts[s].orelse, bb = m->stmts[s].body, t = -1;
        if (ob >= 0 && m->blocks[ob].tail >= 0) t = m->blocks[ob].tail;
        else if (bb >= 0 && m->blocks[bb].tail >= 0) t = m->blocks[bb].tail;
        while (t >= sy->n_tt) t = m->stmts[t].prev;   /* placed since: no position */
        if (t < 0) return 2 * sy->pos[s] + 1;
        s = t;
    }
}

/* An id of pair q -> p free over doubled positions [lo2, hi2] (no group of
   the pair holds it there: lifetimes from the last analysis' positions, or
   from nlife for the order pairs made since), the one farthest from its
   neighbours' lifetimes; -1 when none. */
static int32_t pto__sy_free_between(pto__sy *sy, int q, int p, int32_t lo2, int32_t hi2, const int32_t *nlife, int32_t nn)
{
    int32_t gap[8], g, e, j, best = -1, lim = pto__sy_limit(sy, q, p);
    uint8_t used[8][8];
    pto__sy_reserved(sy, used);
    for (j = 0; j < 8; j++) gap[j] = 0x7fffffff;
    for (g = 0; g < sy->n_grps; g++) {
        const pto__sy_grp *gr = &sy->grps[g];
        int32_t a = 0x7fffffff, b = -1, d;
        if (gr->src != q || gr->dst != p || gr->base < 0 || (gr->kind != PTO__SY_FWD && gr->kind != PTO__SY_LOOP)) continue;
        for (e = gr->e0; e < gr->e0 + gr->ne; e++) {
            int32_t x = sy->ents[e].stmt;
            if (x < 0 || x >= sy->n_tt) continue;
            if (2 * sy->pos[x] < a) a = 2 * sy->pos[x];
            if (2 * sy->pos[x] > b) b = 2 * sy->pos[x];
        }
        for (e = 0; e < nn; e += 3)
            if (nlife[e] == g) a = nlife[e + 1], b = nlife[e + 2];
        if (b < 0) continue;
        d = b < lo2 ? lo2 - b : a > hi2 ? a - hi2 : -1;   /* -1: overlaps */
        for (j = gr->base; j < gr->base + gr->nids && j < 8; j++)
            if (d < gap[j]) gap[j] = d;
    }
    for (j = 0; j < lim; j++)
        if (!(used[q][p] & (1u << j)) && gap[j] > 0 && (best < 0 || gap[j] > gap[best])) best = j;
    return best;
}

/* Set s of pair p -> q (key) may fire before w, the wait that consumed
   the id's previous set (q may lag behind p). When w comes before s in
   program order, a pair of the reverse direction orders it: set_flag(q, p)
   right after w's ancestor, wait_flag(q, p) right before s's ancestor, in
   their lowest common block (so both run equally often), with an id of
   q -> p free over that stretch. Returns its group, or -1 when w does not
   come before s (the reuse is carried by a loop), -2 when no id is free. */
static int32_t pto__sy_order_pair(pto__sy *sy, int32_t g, int32_t s, int32_t key, int32_t w, int32_t *nlife, int32_t nn)
{
    pto_module *m = sy->m;
    int p = key / 64, q = key / 8 % 8;
    int32_t pw, ps, j, f, as, bs, lo2, hi2;
    pto__sy_lca(sy, w, s, &pw, &ps);
    if (pw == ps || !pto__sy_before(m, pw, ps)) return -1;
    lo2 = pto__sy_end2(sy, pw);
    hi2 = 2 * sy->pos[ps] - 1;
    if ((j = pto__sy_free_between(sy, q, p, lo2, hi2, nlife, nn)) < 0) return -2;
    f = pto__sy_new_group(sy, PTO__SY_FWD, q, p, -1, 1, 0);
    if (f < 0) return -2;
    sy->grps[f].arec = sy->grps[g].arec;   /* its warnings name g's tiles */
    sy->grps[f].bstmt = sy->grps[g].bstmt;
    sy->grps[f].bopnd = sy->grps[g].bopnd;
    sy->grps[f].brec = sy->grps[g].brec;
    sy->grps[f].note = pto__sy_order_note(sy, key, s, w);
    as = pto__sy_emit(sy, f, PTO__SY_SET, pw, 1, -1, -1, -1);
    bs = as >= 0 ? pto__sy_emit(sy, f, PTO__SY_WAIT, ps, 0, -1, sy->n_ents - 1, -1) : -1;
    if (bs < 0) return -2;
    sy->grps[f].ne = (uint16_t)(sy->n_ents - sy->grps[f].e0);
    sy->grps[f].pb = ps;
    sy->grps[f].base = j;
    m->exprs[sy->ents[sy->grps[f].e0].ebase].value = j;
    sy->stats.flag_pairs++;
    sy->stats.ordered++;
    return f;
}

/* Order pair for a reuse carried by a loop: the wait w (on q) of one
   iteration must come before the set s (on p) of a later one. The loop
   idiom of the reverse pair q -> p in the innermost loop L around both:
   prime before L, wait_flag(q, p) before s's ancestor in L's body,
   set_flag(q, p) after w's ancestor there, drain after L (balanced for any
   trip count). Returns its group, or -1 (no loop) / -2 (no id free). */
static int32_t pto__sy_order_loop(pto__sy *sy, int32_t g, int32_t s, int32_t key, int32_t w, int32_t *nlife, int32_t nn,
                                  int32_t *life)
{
    pto_module *m = sy->m;
    int p = key / 64, q = key / 8 % 8;
    int32_t pw, ps, L, j, f, e0, st;
    pto__sy_lca(sy, w, s, &pw, &ps);
    for (L = pto__sy_up(m, ps); L >= 0 && m->stmts[L].kind != PTO_ST_FOR; L = pto__sy_up(m, L)) {}
    if (L < 0) return -1;
    pw = pto__sy_in_block(m, w, m->stmts[L].body);
    ps = pto__sy_in_block(m, s, m->stmts[L].body);
    life[0] = 2 * sy->pos[L] - 1;
    life[1] = pto__sy_end2(sy, L);
    if ((j = pto__sy_free_between(sy, q, p, life[0], life[1], nlife, nn)) < 0) return -2;
    f = pto__sy_new_group(sy, PTO__SY_LOOP, q, p, L, 1, 1);
    if (f < 0) return -2;
    sy->grps[f].arec = sy->grps[g].arec;   /* its warnings name g's tiles */
    sy->grps[f].bstmt = sy->grps[g].bstmt;
    sy->grps[f].bopnd = sy->grps[g].bopnd;
    sy->grps[f].brec = sy->grps[g].brec;
    sy->grps[f].note = pto__sy_order_note(sy, key, s, w);
    sy->grps[f].pnote = pto__sy_prefixed(sy, "prime: ", sy->grps[f].note);
    sy->grps[f].dnote = pto__sy_prefixed(sy, "drain: ", sy->grps[f].note);
    e0 = sy->n_ents;
    if (pto__sy_emit(sy, f, PTO__SY_SET, pw, 1, -1, -1, -1) < 0 || pto__sy_emit(sy, f, PTO__SY_WAIT, ps, 0, -1, e0, -1) < 0
        || (st = pto__sy_emit(sy, f, PTO__SY_PRIME, L, 0, 0, e0, -1)) < 0)
        return -2;
    m->stmts[st].loc = m->stmts[L].loc;   /* named by its loop's line */
    if ((st = pto__sy_emit(sy, f, PTO__SY_DRAIN, L, 1, 0, e0, -1)) < 0) return -2;
    m->stmts[st].loc = m->stmts[L].loc;
    sy->grps[f].ne = (uint16_t)(sy->n_ents - sy->grps[f].e0);
    sy->grps[f].base = j;
    m->exprs[sy->ents[e0].ebase].value = j;
    sy->stats.flag_pairs++;
    sy->stats.ordered++;
    return f;
}

/* The group of each statement this run placed (-1 for others). */
static int32_t *pto__sy_group_of(pto__sy *sy)
{
    int32_t i, e, *gof = (int32_t *)pto_alloc(sy->ctx, sizeof(int32_t) * ((size_t)sy->m->n_stmts + 1));
    if (!gof) return NULL;
    for (i = 0; i < sy->m->n_stmts; i++) gof[i] = -1;
    for (e = 0; e < sy->n_ents; e++)
        if (sy->ents[e].stmt >= 0) gof[sy->ents[e].stmt] = sy->ents[e].grp;
    return gof;
}

/* Whether an order pair was made for (set s, wait w) already: 2 in this
   round (the analysis meets a loop's violation once per visit), 1 in an
   earlier one (then it did not help: the group falls back); 0 and records
   it otherwise. done[0 .. from) are the earlier rounds'. */
static int pto__sy_done_before(pto__sy *sy, int32_t s, int32_t w, int32_t from)
{
    int32_t i;
    for (i = 0; i < sy->n_done; i += 2)
        if (sy->done[i] == s && sy->done[i + 1] == w) return i >= from ? 2 : 1;
    if (pto__sy_grow(sy, (void **)&sy->done, sizeof(int32_t), &sy->cap_done, sy->n_done + 2)) {
        sy->done[sy->n_done++] = s;
        sy->done[sy->n_done++] = w;
    }
    return 0;
}

/* One violation of the reuse rule (set s of group g, key, wait w): an order
   pair, or g falls back to PIPE_ALL with the reason. */
static pto_status pto__sy_order_one(pto__sy *sy, int32_t g, int32_t s, int32_t key, int32_t w, int32_t **nlife,
                                    int32_t *nn, int32_t *cap, int32_t from)
{
    char why[320], reason[120];
    int32_t f = -3;   /* an order pair was made for it and did not help */
    int32_t life[2], pw, ps;
    int done = pto__sy_done_before(sy, s, w, from);
    if (done == 2) return PTO_OK;
    if (!done && w < sy->n_tt && s < sy->n_tt) {
        pto__sy_lca(sy, w, s, &pw, &ps);
        life[0] = pto__sy_end2(sy, pw);
        life[1] = 2 * sy->pos[ps] - 1;
        f = pto__sy_order_pair(sy, g, s, key, w, *nlife, *nn);
        if (f == -1) f = pto__sy_order_loop(sy, g, s, key, w, *nlife, *nn, life);
        if (f >= 0) {
            if (pto__sy_grow(sy, (void **)nlife, sizeof(int32_t), cap, *nn + 3)) {
                (*nlife)[(*nn)++] = f;
                (*nlife)[(*nn)++] = life[0];
                (*nlife)[(*nn)++] = life[1];
            }
            return PTO_OK;
        }
    }
    pto__sy_base_of(sy, w);
    if (f == -1) snprintf(reason, sizeof reason, "that wait is a later iteration's: no pair placed in one iteration orders it");
    else if (f == -2)
        snprintf(reason, sizeof reason, "no id of the reverse pair %s -> %s is free there to order that wait first",
                 pto_pipe_name((pto_pipe)sy->grps[g].dst), pto_pipe_name((pto_pipe)sy->grps[g].src));
    else snprintf(reason, sizeof reason, "a reverse pair did not order it");
    snprintf(why, sizeof why, "id %d would be set again before its previous wait (%s:%llu) is known to be past, and %s",
             (int)(key % 8), sy->base_name, pto__sy_line(sy, w), reason);
    return pto__sy_fallback(sy, g, why);
}

/* Violations of one round that one order pair can serve: those of the
   same reverse pair q -> p whose waits' and sets' ancestors (their lowest
   common block) share a block. The pair for violation i (at viol[i]) is set
   after the latest of those waits whose ancestor still precedes i's set's
   (pto__sy_viol_latest): each earlier wait on q precedes that set_flag(q,
   p), and every set of p after i's (in that block) follows its wait_flag;
   the violations it so orders get no pair of their own
   (pto__sy_viol_covered). Violations are collected in analysis order, so
   those one pair serves lie close: PTO__SY_VWIN entries each way. */
#define PTO__SY_VWIN 48

/* The ancestors of violation k's wait and set in their lowest common
   block, when the wait's comes first there (and both have positions). */
static int pto__sy_viol_span(pto__sy *sy, int32_t k, int32_t *pw, int32_t *ps)
{
    int32_t w = sy->viol[k + 2], s = sy->viol[k];
    if (w < 0 || w >= sy->n_tt || s >= sy->n_tt || sy->m->stmts[w].block < 0) return 0;
    pto__sy_lca(sy, w, s, pw, ps);
    return *pw != *ps && sy->pos[*pw] < sy->pos[*ps];
}

/* The wait violation i's order pair goes after: its own, or a later one
   of a violation nearby of the same pair whose ancestor next to i's set's
   is still before it. */
static int32_t pto__sy_viol_latest(pto__sy *sy, int32_t i)
{
    int32_t pw, ps, a, b, j, best = sy->viol[i + 2], key = sy->viol[i + 1];
    if (!pto__sy_viol_span(sy, i, &pw, &ps)) return best;
    for (j = i - 3 * PTO__SY_VWIN < 0 ? 0 : i - 3 * PTO__SY_VWIN; j < sy->n_viol && j <= i + 3 * PTO__SY_VWIN; j += 3) {
        int32_t w = sy->viol[j + 2];
        if (j == i || sy->viol[j + 1] / 8 != key / 8 || w < 0 || w >= sy->n_tt || sy->m->stmts[w].block < 0) continue;
        pto__sy_lca(sy, w, sy->viol[i], &a, &b);
        if (b == ps && a != b && sy->pos[a] < sy->pos[ps] && sy->pos[a] > sy->pos[pw]) pw = a, best = w;
    }
    return best;
}

/* Whether an order pair made this round (nlife: group, lifetime) already
   orders violation i: its set after i's wait's ancestor, its wait before
   i's set's, all in one block. */
static int pto__sy_viol_covered(pto__sy *sy, int32_t i, const int32_t *nlife, int32_t nn)
{
    int32_t pw, ps, k, key = sy->viol[i + 1];
    if (!pto__sy_viol_span(sy, i, &pw, &ps)) return 0;
    for (k = nn - 3; k >= 0 && k >= nn - 3 * PTO__SY_VWIN; k -= 3) {
        const pto__sy_grp *fr = &sy->grps[nlife[k]];
        int32_t sf, wf;
        if (fr->kind != PTO__SY_FWD || fr->src != key / 8 % 8 || fr->dst != key / 64) continue;
        pto__sy_ends(sy, nlife[k], &sf, &wf);
        if (sf < 0 || wf < 0 || sy->m->stmts[sf].block != sy->m->stmts[pw].block
            || sy->m->stmts[wf].block != sy->m->stmts[ps].block)
            continue;
        /* its lifetime (doubled positions): from the end of its set's anchor to before its wait's */
        if (nlife[k + 1] >= pto__sy_end2(sy, pw) && nlife[k + 2] <= 2 * sy->pos[ps] - 1) return 1;
    }
    return 0;
}

/* An id must not be set again before the wait of its previous set is
   known to be past (pto__sy_id_reuse). The colouring prefers ids whose
   reuse it can show ordered (pto__sy_first_free); then the CHECK analysis
   runs (always: the colouring's proof is not sound under ifs),
   collecting each set that breaks the rule, and each gets an order pair
   (pto__sy_order_pair) or, when none fits or one did not help, its group
   falls back to a PIPE_ALL barrier; then the analysis runs again, until it
   finds nothing (then it was the check). Other groups keep their ids, so
   each round only adds order. */
static pto_status pto__sy_order_reuse(pto__sy *sy)
{
    int32_t round, i, *gof, *nlife = NULL, nn, cap = 0;
    pto_status st = PTO_OK;
    sy->n_done = 0;
    for (round = 0; st == PTO_OK && round < 64; round++) {
        int fixed = 0;
        int32_t from = sy->n_done;
        sy->n_viol = 0;
        sy->collect = 1;
        pto__sy_analyse(sy, PTO__SY_CHECK);
        sy->collect = 0;
        if (sy->status != PTO_OK || sy->n_viol == 0) break;
        if (!(gof = pto__sy_group_of(sy))) { st = PTO_ERR_INTERNAL; break; }
        nn = 0;
        for (i = 0; st == PTO_OK && i < sy->n_viol; i += 3) {
            int32_t g = gof[sy->viol[i]], w;
            /* a written flag: the CHECK analysis reports it; a group that fell back
               this round has no set left */
            if (g < 0 || sy->grps[g].dst == PTO_PIPE_ALL) continue;
            fixed = 1;
            /* its wait's group fell back this round: the next round sees anew */
            if (sy->viol[i + 2] < 0 || sy->m->stmts[sy->viol[i + 2]].block < 0) continue;
            if (pto__sy_viol_covered(sy, i, nlife, nn)) continue;
            w = pto__sy_viol_latest(sy, i);
            st = pto__sy_order_one(sy, g, sy->viol[i], sy->viol[i + 1], w, &nlife, &nn, &cap, from);
        }
        pto_free(sy->ctx, gof);
        if (!fixed) break;
    }
    pto_free(sy->ctx, nlife);
    if (st == PTO_OK && sy->status == PTO_OK && sy->n_viol && sy->check) pto__sy_analyse(sy, PTO__SY_CHECK);
    return st != PTO_OK ? st : sy->status;
}

/* ---- pairs another pair implies ---------------------------------------------
   Two one-id forward pairs a and b of one pipe pair (src -> dst) whose
   sets sit in one block, a's first, and whose waits sit side by side
   (nothing between them but declarations, lets, and flags and barriers
   that do not run on dst): src runs its queue in order, so b's set fires after a's, and
   b's wait holds dst at least as long as a's; a orders nothing b does not
   (review23 L6: two waits hoisted to one place before a loop, one per
   tload into L1). a goes, its id freed before the colouring. */

/* The statements of its set and its wait, when group g is a one-id forward pair. */
static int pto__sy_fwd_pair(const pto__sy *sy, int32_t g, int32_t *set, int32_t *wait)
{
    const pto__sy_grp *gr = &sy->grps[g];
    int32_t e;
    *set = *wait = -1;
    if (gr->kind != PTO__SY_FWD || gr->nids != 1) return 0;
    for (e = gr->e0; e < gr->e0 + gr->ne; e++) {
        const pto__sy_ent *en = &sy->ents[e];
        if (en->stmt < 0) continue;
        if (en->role == PTO__SY_SET) *set = en->stmt;
        else if (en->role == PTO__SY_WAIT) *wait = en->stmt;
        else return 0;
    }
    return *set >= 0 && *wait >= 0;
}

/* Whether statement b follows a in their block, at most `far` statements on. */
static int pto__sy_follows(const pto_module *m, int32_t a, int32_t b, int far)
{
    int32_t s;
    if (m->stmts[a].block != m->stmts[b].block) return 0;
    for (s = m->stmts[a].next; s >= 0 && far-- > 0; s = m->stmts[s].next)
        if (s == b) return 1;
    return 0;
}

/* The pipe a flag or barrier statement runs on: a set_flag its source's,
   a wait_flag its waiting pipe's, a barrier its own (-1: none of them). */
static int pto__sy_runs_on(const pto_module *m, int32_t s)
{
    const pto_stmt *x = &m->stmts[s];
    const pto_operand *o;
    if (x->kind != PTO_ST_OP || !pto__sy_issync(x->op)) return -1;
    o = pto_stmt_arg(m, s, x->op == PTO_OP_WAIT_FLAG ? 1 : 0);
    return o && o->kind == PTO_O_PIPE ? o->ref : -1;
}

static int32_t *pto__sy_group_of(pto__sy *sy);

/* The one-id forward pair of pipes src -> dst whose wait is the first
   wait_flag of those pipes next to statement w (dir: next 1, previous 0)
   with only quiet statements between: declarations, lets, and flags and
   barriers that run on other pipes than dst (a set_flag from dst between
   the two waits would lose what the dropped wait held it to), or -1. */
static int32_t pto__sy_wait_beside(const pto__sy *sy, const int32_t *gof, int32_t w, int dir, int src, int dst)
{
    const pto_module *m = sy->m;
    int32_t s, far = 16, sb, wb;
    for (s = dir ? m->stmts[w].next : m->stmts[w].prev; s >= 0 && far-- > 0; s = dir ? m->stmts[s].next : m->stmts[s].prev) {
        const pto_stmt *x = &m->stmts[s];
        if (x->kind == PTO_ST_TILE || x->kind == PTO_ST_LET) continue;
        if (x->kind != PTO_ST_OP || !pto__sy_issync(x->op)) return -1;
        if (x->op == PTO_OP_WAIT_FLAG && gof[s] >= 0 && sy->grps[gof[s]].src == src && sy->grps[gof[s]].dst == dst &&
            pto__sy_fwd_pair(sy, gof[s], &sb, &wb) && wb == s)
            return gof[s];
        if (pto__sy_runs_on(m, s) == dst) return -1;
    }
    return -1;
}

/* The kept pair's set says what it now orders too: "RAW ... ; also RAW
   ... (its own pair is implied: <src> sets in order)". Left as it was when
   that would be long or there is no memory. */
static void pto__sy_also(pto__sy *sy, int32_t kept, int32_t gone, int src)
{
    pto_module *m = sy->m;
    char buf[640];
    int n;
    int32_t id;
    if (!m->stmts[kept].note || !m->stmts[gone].note) return;
    n = snprintf(buf, sizeof buf, "%s; also %s (its own pair is implied: %s sets in order)",
                 pto_str(sy->ctx, m->stmts[kept].note), pto_str(sy->ctx, m->stmts[gone].note),
                 pto_pipe_name((pto_pipe)src));
    if (n <= 0 || (size_t)n >= sizeof buf) return;
    if ((id = pto_intern(sy->ctx, buf, (size_t)n)) > 0) m->stmts[kept].note = id;
}

/* (gof: per statement its group) */
static void pto__sy_implied(pto__sy *sy)
{
    const pto_module *m = sy->m;
    int32_t a, sa, wa, sb, wb, *gof;
    int dir;
    if (sy->n_grps < 2 || !(gof = pto__sy_group_of(sy))) return;   /* (no memory: nothing dropped) */
    for (a = 0; a < sy->n_grps; a++) {
        const pto__sy_grp *ga = &sy->grps[a];
        if (!pto__sy_fwd_pair(sy, a, &sa, &wa)) continue;
        for (dir = 0; dir < 2; dir++) {   /* b: beside a's wait, its set after a's in a's block */
            int32_t b = pto__sy_wait_beside(sy, gof, wa, dir, ga->src, ga->dst);
            if (b < 0 || !pto__sy_fwd_pair(sy, b, &sb, &wb) || !pto__sy_follows(m, sa, sb, 64)) continue;
            pto__sy_drop_group(sy, a);
            pto__sy_also(sy, sb, sa, ga->src);
            break;
        }
    }
    pto_free(sy->ctx, gof);
}

/* ---- barriers another barrier implies ------------------------------------------------
   A pipe_barrier on V or M orders that pipe's work before it against its
   work after it. When every path to it comes from another barrier of that
   pipe (or PIPE_ALL) with no op of the pipe in between, the earlier one
   already orders all it does: it goes. Looked for straight back over
   declarations, lets and flags only (any op ends the look: a walk over ops
   of other pipes cost more than it found), in its block and from a branch's
   head on to the if itself; a loop's head (the back edge) or any loop or
   if on the way ends it too. The usual case:
   `if k == 0 { tmatmul } else { tmatmul_acc }` in a loop, where the WAW
   from the last trip's tmatmul_acc to the first tmatmul of the next outer
   trip puts a barrier before the if, and the RAW between tmatmul_accs one
   in the else branch (bench/repro/nested_carry/mmr.pto). */

/* The pipe of a barrier statement (-1 when s is none). */
static int pto__sy_bar_pipe(const pto_module *m, int32_t s)
{
    const pto_operand *o;
    if (m->stmts[s].kind != PTO_ST_OP || m->stmts[s].op != PTO_OP_PIPE_BARRIER) return -1;
    o = pto_stmt_arg(m, s, 0);
    return o && o->kind == PTO_O_PIPE ? o->ref : -1;
}

/* Whether a barrier of pipe p (or ALL) comes before statement s on every
   path with no op on p between. */
static int pto__sy_bar_before(const pto_module *m, int32_t s, int p)
{
    int32_t x = s, far = 64;
    for (;;) {
        const pto_stmt *st;
        if (m->stmts[x].prev < 0) {   /* its block's head: only an if's branch goes on */
            x = pto__sy_up(m, x);
            if (x < 0 || m->stmts[x].kind != PTO_ST_IF) return 0;
        }
        x = m->stmts[x].prev;
        if (x < 0 || far-- <= 0) return 0;
        st = &m->stmts[x];
        if (st->kind == PTO_ST_TILE || st->kind == PTO_ST_LET) continue;
        if (st->kind != PTO_ST_OP) return 0;
        if (!pto__sy_issync(st->op)) return 0;   /* (an op of another pipe too: the cheap look) */
        if (st->op == PTO_OP_PIPE_BARRIER) {
            int bp = pto__sy_bar_pipe(m, x);
            if (bp == p || bp == PTO_PIPE_ALL) return 1;
        }
    }
}

static void pto__sy_bar_implied(pto__sy *sy)
{
    const pto_module *m = sy->m;
    int32_t g, e;
    for (g = 0; g < sy->n_grps; g++) {
        const pto__sy_grp *gr = &sy->grps[g];
        int32_t b = -1, n = 0;
        if (gr->kind != PTO__SY_BAR) continue;
        for (e = gr->e0; e < gr->e0 + gr->ne; e++)
            if (sy->ents[e].stmt >= 0) b = sy->ents[e].stmt, n++;
        if (n == 1 && pto__sy_bar_before(m, b, gr->src)) pto__sy_drop_group(sy, g);   /* (src: its pipe) */
    }
}

static pto_status pto__sy_kernel(pto__sy *sy)
{
    pto_status st = pto__sy_build_records(sy);
    if (st != PTO_OK) return st;
    pto__sy_reserve(sy, sy->nacc);
    memset(&sy->stmt_tpl, 0, sizeof sy->stmt_tpl);
    sy->stmt_tpl.kind = PTO_ST_OP;
    sy->stmt_tpl.origin = PTO_BY_SYNC;
    sy->stmt_tpl.next = sy->stmt_tpl.prev = sy->stmt_tpl.block = sy->stmt_tpl.ref = -1;
    sy->stmt_tpl.e[0] = sy->stmt_tpl.e[1] = sy->stmt_tpl.e[2] = sy->stmt_tpl.body = sy->stmt_tpl.orelse = -1;
    memset(&sy->opnd_tpl, 0, sizeof sy->opnd_tpl);
    sy->opnd_tpl.e[0] = sy->opnd_tpl.e[1] = sy->opnd_tpl.e[2] = -1;
    sy->s0 = sy->m->n_stmts;   /* every statement made from here on is a placement */
    pto__sy_analyse(sy, PTO__SY_FIND);
    if (pto__sy_notes(sy) != PTO_OK) return PTO_ERR_INTERNAL;
    if (sy->status != PTO_OK) return sy->status;
    pto__sy_implied(sy);
    pto__sy_bar_implied(sy);
    if ((st = pto__sy_assign(sy)) != PTO_OK) return st;
    /* the id-reuse rule is the pass's guarantee, checked or not: the
       analysis that proves it runs unless the colouring showed every reuse
       ordered (sy->doubt clear: pto__sy_order_pos, pto__sy_self_sure) and
       the kernel has no flags of its own (whose misuse that analysis
       reports). With check on it always runs; tests/test_sync_check.c and
       test_sync_random require the same statements either way (session 15
       found 7 repo kernels with ifs where a proof that trusted too much
       left a reuse unordered). */
    if (!sy->check && !sy->doubt && !sy->user_flags) return PTO_OK;
    return pto__sy_order_reuse(sy);
}

/* ---- a second run over fallback barriers (review26 A-M6) -----------------------------
   A PIPE_ALL barrier orders everything before it on every pipe before
   everything after it, in each iteration of the loops around it; the pairs
   placed before it fell back (a loop's carried WAR pairs, the pipe_barrier
   V next to it) may now order nothing it does not. So when a kernel's run
   made fallback barriers, the pass runs again with those barriers alone,
   as if the kernel had them (pto__sy_fence, pto__sy_barrier): what they
   order gets no pair, which also frees ids (review26's five x2 loads: 40
   flags + 5 barriers -> 10 + 4). The barriers keep their notes and their
   warnings; the first run's other sync warnings (shared or degraded pairs
   that may no longer exist) go, the second run says its own. One such run,
   kept only when it made no fallback of its own (pto__sy_kernel_runs). */

/* Unlinks every statement this run placed but its PIPE_ALL fallback
   barriers. */
static void pto__sy_keep_fallbacks(pto__sy *sy)
{
    pto_module *m = sy->m;
    int32_t s;
    for (s = sy->s0; s < m->n_stmts; s++) {
        int32_t e = s - sy->s0;
        if (m->stmts[s].block < 0) continue;
        if (e < sy->n_ents && sy->ents[e].stmt == s && sy->ents[e].role == PTO__SY_BARRIER
            && sy->grps[sy->ents[e].grp].dst == PTO_PIPE_ALL)
            continue;
        pto_unlink(m, s);
    }
}

static void pto__sy_reset(pto__sy *sy);

/* What the first run left, to put back when the second is worse: the
   statements' links and notes (the second run only appends statements, and
   unlinks the first's), the blocks' ends, the diagnostics from nd on (their
   messages owned here meanwhile) and the stats. */
typedef struct pto__sy_snap {
    pto_stmt *stmts;
    pto_block *blocks;
    pto_diag *diags;
    int32_t n_stmts, n_blocks, nd, n_diags, n_errors;
    pto_sync_stats stats;
} pto__sy_snap;

static int pto__sy_snap_take(pto__sy *sy, pto__sy_snap *z, int32_t nd)
{
    pto_ctx *ctx = sy->ctx;
    const pto_module *m = sy->m;
    z->n_stmts = m->n_stmts;
    z->n_blocks = m->n_blocks;
    z->nd = nd;
    z->n_diags = ctx->n_diags - nd;
    z->n_errors = ctx->n_errors;
    z->stats = sy->stats;
    z->stmts = (pto_stmt *)pto__alloc_quiet(ctx, sizeof(pto_stmt) * ((size_t)z->n_stmts + 1));
    z->blocks = (pto_block *)pto__alloc_quiet(ctx, sizeof(pto_block) * ((size_t)z->n_blocks + 1));
    z->diags = (pto_diag *)pto__alloc_quiet(ctx, sizeof(pto_diag) * ((size_t)z->n_diags + 1));
    if (!z->stmts || !z->blocks || !z->diags) {
        pto_free(ctx, z->stmts);
        pto_free(ctx, z->blocks);
        pto_free(ctx, z->diags);
        return 0;
    }
    memcpy(z->stmts, m->stmts, sizeof(pto_stmt) * (size_t)z->n_stmts);
    memcpy(z->blocks, m->blocks, sizeof(pto_block) * (size_t)z->n_blocks);
    memcpy(z->diags, ctx->diags + nd, sizeof(pto_diag) * (size_t)z->n_diags);
    ctx->n_diags = nd;   /* the messages are the snapshot's now */
    return 1;
}

/* keep: the first run's result comes back (else only the memory goes). */
static void pto__sy_snap_end(pto__sy *sy, pto__sy_snap *z, int keep)
{
    pto_ctx *ctx = sy->ctx;
    pto_module *m = sy->m;
    int32_t i;
    if (keep) {
        memcpy(m->stmts, z->stmts, sizeof(pto_stmt) * (size_t)z->n_stmts);
        memcpy(m->blocks, z->blocks, sizeof(pto_block) * (size_t)z->n_blocks);
        for (i = z->n_stmts; i < m->n_stmts; i++) m->stmts[i].block = m->stmts[i].next = m->stmts[i].prev = -1;
        while (ctx->n_diags > z->nd) pto_free(ctx, ctx->diags[--ctx->n_diags].msg);
        /* (the array held them before: room enough) */
        memcpy(ctx->diags + z->nd, z->diags, sizeof(pto_diag) * (size_t)z->n_diags);
        ctx->n_diags = z->nd + z->n_diags;
        ctx->n_errors = z->n_errors;
        sy->stats = z->stats;
        sy->status = PTO_OK;
    } else {
        for (i = 0; i < z->n_diags; i++) pto_free(ctx, z->diags[i].msg);
    }
    pto_free(ctx, z->stmts);
    pto_free(ctx, z->blocks);
    pto_free(ctx, z->diags);
}

/* One kernel: the pass, then, when it made fallback barriers, again over
   them; the second run's result stands when it made no fallback of its
   own (a new PIPE_ALL in a loop body would cost more than the pairs it
   saved: tests/diag/delay_drains.pto, 4149 -> 4376 cycles at n = 9). */
static pto_status pto__sy_kernel_runs(pto__sy *sy)
{
    pto_sync_stats s0 = sy->stats;
    pto__sy_snap z;
    int32_t nd = sy->ctx->n_diags, i;
    int fb;
    pto_status st = pto__sy_kernel(sy);
    if (st != PTO_OK || sy->status != PTO_OK || sy->stats.fallbacks == s0.fallbacks) return st;
    if (!pto__sy_snap_take(sy, &z, nd)) return st;   /* no memory: the first run's result */
    for (i = 0; i < z.n_diags; i++)   /* the fallback warnings stay */
        if (z.diags[i].severity == PTO_SEV_WARNING && strstr(z.diags[i].msg, "PIPE_ALL barrier instead of"))
            pto_warning(sy->ctx, z.diags[i].loc, "%s", z.diags[i].msg);
    pto__sy_keep_fallbacks(sy);
    fb = z.stats.fallbacks;
    pto__sy_reset(sy);
    sy->stats = s0;
    sy->stats.fallbacks = fb;
    sy->stats.rounds = z.stats.rounds;
    sy->status = PTO_OK;
    st = pto__sy_kernel(sy);
    pto__sy_snap_end(sy, &z, st != PTO_OK || sy->status != PTO_OK || sy->stats.fallbacks != fb);
    return PTO_OK;
}

static void pto__sy_reset(pto__sy *sy)
{
    pto_ctx *ctx = sy->ctx;
    int32_t i;
    for (i = 0; i < sy->nfree; i++) {
        pto__sy_st_free(sy, sy->freel[i]);
        pto_free(ctx, sy->freel[i]);
    }
    pto_free(ctx, sy->freel);
    pto_free(ctx, sy->fr);
    pto_free(ctx, sy->pendg);
    pto_free(ctx, sy->drop);
    pto_free(ctx, sy->tstart);
    pto_free(ctx, sy->tend);
    pto_free(ctx, sy->idc);
    pto_free(ctx, sy->uidc);
    pto_free(ctx, sy->progs);
    pto_free(ctx, sy->recs);
    pto_free(ctx, sy->rec_of);
    pto_free(ctx, sy->op_loop);
    pto_free(ctx, sy->op_nbuf);
    pto_free(ctx, sy->mark_at);
    pto_free(ctx, sy->mark_k);
    pto_free(ctx, sy->lab);
    pto_free(ctx, sy->lab_len);
    pto_free(ctx, sy->tile_loop);
    pto_free(ctx, sy->inert);
    pto_free(ctx, sy->last_free);
    pto_free(ctx, sy->period);
    pto_free(ctx, sy->phase);
    pto_free(ctx, sy->pos);
    pto_free(ctx, sy->dep);
    pto_free(ctx, sy->grps);
    pto_free(ctx, sy->ents);
    pto_free(ctx, sy->seen);
    pto_free(ctx, sy->seen_head);
    pto_free(ctx, sy->shr);
    pto_free(ctx, sy->viol);
    pto_free(ctx, sy->done);
    pto_free(ctx, sy->acc);
    pto_free(ctx, sy->blk_acc);
    pto_free(ctx, sy->ord_prev);
    {
        pto_ctx *c = sy->ctx;
        pto_module *m = sy->m;
        int32_t k = sy->kernel, ids = sy->ids_per_pair, check = sy->check;
        pto_sync_stats stats = sy->stats;
        pto_status status = sy->status;
#ifdef PTO__SY_VISITS
        long v0 = sy->visits[0], v1 = sy->visits[1];
#endif
        memset(sy, 0, sizeof *sy);
#ifdef PTO__SY_VISITS
        sy->visits[0] = v0;
        sy->visits[1] = v1;
#endif
        sy->ctx = c;
        sy->m = m;
        sy->kernel = k;
        sy->ids_per_pair = ids;
        sy->check = check;
        sy->base_file = -1;
        sy->stats = stats;
        sy->status = status;
    }
}

/* The caller's flags are the sync: nothing to insert (api.h). */
PTODEF pto_status pto_sync_hand(pto_ctx *ctx, pto_module *m)
{
    if (pto__need_verified(ctx, m, "pto_sync_hand") != PTO_OK) return PTO_ERR_USER;
    m->unsynced = 0;
    return PTO_OK;
}

PTODEF pto_status pto_sync(pto_ctx *ctx, pto_module *m, const pto_sync_desc *desc)
{
    pto__sy sy;
    pto_status st = PTO_OK;
    int32_t k;
    if (pto__need_verified(ctx, m, "pto_sync") != PTO_OK) return PTO_ERR_USER;
    memset(&sy, 0, sizeof sy);
    sy.ctx = ctx;
    sy.m = m;
    sy.ids_per_pair = desc && desc->ids_per_pair > 0 ? (desc->ids_per_pair > 8 ? 8 : desc->ids_per_pair) : 8;
    sy.check = desc && desc->check;
    sy.base_file = -1;
    for (k = 0; k < m->n_kernels && st == PTO_OK; k++) {
        sy.kernel = k;
        sy.status = PTO_OK;
        sy.stop = 0;
        st = pto__sy_kernel_runs(&sy);
        pto__sy_reset(&sy);
    }
    if (desc && desc->stats) *desc->stats = sy.stats;
#ifdef PTO__SY_VISITS
    fprintf(stderr, "sync: %ld loop body visits (FIND), %ld (CHECK)\n", sy.visits[0], sy.visits[1]);
#endif
    /* its relinking cleared the stamp; a synced module is still valid (a
       failed sync that relinked leaves it cleared) */
    if (st == PTO_OK) {
        pto__stamp(m);
        m->unsynced = 0;   /* what pto_emit asks of a planned module */
    }
    return st;
}

/* ---- dump ------------------------------------------------------------------------------ */

/* ns: each dependency note once, as in the emitted C (print.c's pto__pr_note_use). */
static void pto__sy_dump_block(const pto_module *m, int32_t blk, int depth, pto_buf *b, pto__pr_notes *ns)
{
    int32_t s;
    for (s = m->blocks[blk].head; s >= 0; s = m->stmts[s].next) {
        const pto_stmt *st = &m->stmts[s];
        int32_t see = pto__pr_note_use(m, ns, s);
        if (st->note && see == -2) pto_buf_printf(b, "%*s# %s\n", 2 * depth, "", pto_str(m->ctx, st->note));
        pto_buf_printf(b, "%*s", 2 * depth, "");
        switch (st->kind) {
        case PTO_ST_OP: pto__pr_op(m, s, b); break;   /* print.c's: the same .pto text */
        case PTO_ST_TILE: {
            const pto_tile *t = &m->tiles[st->ref];
            int k;
            pto_buf_printf(b, "tile %s: %s %s[%d, %d] x%d at", pto_str(m->ctx, t->name), pto_space_name((pto_space)t->space),
                           pto_dtype_name((pto_dtype)t->dtype), (int)t->rows, (int)t->cols, (int)t->nbuf);
            for (k = 0; k < t->nbuf && k < PTO_MAX_NBUF; k++)
                pto_buf_printf(b, k ? ",0x%04llx" : " 0x%04llx", (unsigned long long)t->offset[k]);
            if (!t->planned) pto_buf_puts(b, " (unplanned)");
            break;
        }
        case PTO_ST_LET:
            pto_buf_printf(b, "let %s = ", pto_str(m->ctx, m->vars[st->ref].name));
            pto_print_expr(m, st->e[0], b);
            break;
        case PTO_ST_FOR:
            pto_buf_printf(b, "for %s = ", pto_str(m->ctx, m->vars[st->ref].name));
            pto_print_expr(m, st->e[0], b);
            pto_buf_puts(b, " to ");
            pto_print_expr(m, st->e[1], b);
            if (st->e[2] >= 0) { pto_buf_puts(b, " step "); pto_print_expr(m, st->e[2], b); }
            break;
        case PTO_ST_IF:
            pto_buf_puts(b, "if ");
            pto_print_expr(m, st->e[0], b);
            pto_buf_printf(b, " %s ", pto_cmp_name((pto_cmp)st->cmp));
            pto_print_expr(m, st->e[1], b);
            break;
        case PTO_ST_SECTION: pto_buf_puts(b, st->ref == PTO_CORE_CUBE ? "cube" : "vector"); break;
        default: break;
        }
        if (see >= 0) {
            pto_buf_puts(b, "  # ");
            pto__pr_note_ref(m, see, b);
        }
        pto_buf_puts(b, st->body >= 0 ? " {\n" : "\n");
        if (st->body >= 0) {
            pto__sy_dump_block(m, st->body, depth + 1, b, ns);
            ns->last = 0;
            pto_buf_printf(b, "%*s}", 2 * depth, "");
            if (st->orelse >= 0) {
                pto_buf_puts(b, " else {\n");
                pto__sy_dump_block(m, st->orelse, depth + 1, b, ns);
                ns->last = 0;
                pto_buf_printf(b, "%*s}", 2 * depth, "");
            }
            pto_buf_puts(b, "\n");
        }
    }
}

PTODEF void pto_sync_dump(const pto_module *m, pto_buf *out)
{
    int32_t k, s;
    pto__pr_notes ns;
    if (!m || !out) return;
    pto__pr_notes_init(m, &ns);
    for (k = 0; k < m->n_kernels; k++) {
        int nset = 0, nwait = 0, nbar = 0, nall = 0;
        for (s = 0; s < m->n_stmts; s++) {
            const pto_stmt *st = &m->stmts[s];
            if (st->kind != PTO_ST_OP || st->origin != PTO_BY_SYNC || st->block < 0) continue;
            if (m->blocks[st->block].kernel != k) continue;
            nset += st->op == PTO_OP_SET_FLAG;
            nwait += st->op == PTO_OP_WAIT_FLAG;
            if (st->op == PTO_OP_PIPE_BARRIER) {
                nbar++;
                nall += pto_stmt_arg(m, s, 0)->ref == PTO_PIPE_ALL;
            }
        }
        pto_buf_printf(out, "kernel %s  # sync: %d set_flag, %d wait_flag, %d pipe_barrier (%d PIPE_ALL fallbacks)\n",
                       pto_str(m->ctx, m->kernels[k].name), nset, nwait, nbar, nall);
        pto__pr_notes_kernel(&ns);
        pto__sy_dump_block(m, m->kernels[k].body, 1, out, &ns);
    }
    pto_free(m->ctx, ns.first);
}
