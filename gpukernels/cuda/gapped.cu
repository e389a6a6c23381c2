// Gapped y-drop extension: twin of cpu/gapped.ydrop_one_side (FastZ design).
//
// A group of threads per task (one side of one anchor) walks anti-diagonals
// from the origin; each anti-diagonal's cells are independent, one per thread
// at a time, in rows of a cyclic buffer in shared memory (H for three
// anti-diagonals, E and F for two, indexed by query offset i mod band).
//   ydrop: the group is a warp, several tasks per block (waves: throughput);
//   ydrop_wide: the group is the whole block, one task per block (the host
//     walk's rounds: latency, since a few sides wait on each round).
//
// mode 0, the inspector: score only; finds the best cell, counts cells and
//   anti-diagonals, and reports the region explored up to the best
//   anti-diagonal (for the host's wave rule: walls that arrive only past it
//   cannot change the result; all of it for an abandoned side) and the cells
//   up to the best anti-diagonal (the executor's memory). Status 1: an
//   anti-diagonal outgrew the band buffer; 2: more than dcap anti-diagonals
//   (the host extends such sides).
// mode 1, the executor: recomputes anti-diagonals 1..dstop only, writing a
//   one-byte traceback per cell (src | 4 if E extends | 8 if F extends) and,
//   per anti-diagonal, its first i and its offset; the host traces back.
// mode 2, both at once (a round, whose few sides would wait on a second
//   launch): the inspector writes the traceback of every anti-diagonal as
//   the executor does, while it fits the task's room (tb_base and ad_base
//   have ntasks + 1 entries; the next task's base ends the room), and
//   reports in R_TRACED whether it holds the best cell's; ydrop_pack then
//   packs the tracebacks up to the best cells for one copy to the host.
// mode 3, a relay chunk (cpu/relay.py; kernel ydrop_chunk): mode 2 up to anti-diagonal dstop, the task's origin
//   being the chunk's seed cell; the state after anti-diagonal dump_at and at the end goes to
//   dump, each as a header (DUMP_HEAD ints) and the rows relay.snapshot returns (rows of
//   band + 2 ints), so the host checks the chunk where it takes over.
//
// Rows at the best (modes 1 and 2, where dump_w > 0): dump is then an arena of slots, each a
// header and four rows of dump_w + 2 ints, and slots[2 * task] the slot where the task keeps
// its rows at its best cell (mode 1: at dstop; mode 2: at every new best, so the last copy is
// at the final best; -1: none). In mode 2, slots[2 * task + 1] holds the rows of an earlier
// run of the same side with fewer walls (the stale run, final best B at anti-diagonal D). At
// D the task stops, its result final, when its best is the same cell with the same B and its
// rows there (H of D and D - 1, E and F of D) are nowhere above the stale ones, a dead or
// unreached cell counting as NEG (R_STOPPED). Why that is exact: past D the floor is B - ydrop
// in both runs; the cell rules are monotone, and the walls only grew, so by induction over the
// anti-diagonals every cell is at or below the stale run's, and alive only where that one was.
// There every cell past D scored below B (a substitution cell at B would have moved the best
// under the >= rule; a gap cell lies below the cell its gap opened from), so the best cell,
// its score and its traceback (cells up to D) are the full run's.
//
// The cell rules, tie-breaks and pruning are the CPU twin's, line by line.

#define FULL 0xffffffffu
#define NEG (-(1 << 29))

// results of the inspector, per task
#define R_BEST 0
#define R_BI 1
#define R_BJ 2
#define R_CELLS 3
#define R_CELLS_AT_BEST 4
#define R_IMAX 5
#define R_JMAX 6
#define R_KMIN 7
#define R_KMAX 8
#define R_STATUS 9
#define R_DIAGS 10
#define R_TRACED 11
#define R_STOPPED 12
#define R_N 13

#define DUMP_HEAD 16

// The warp kernels' anti-diagonals hold at most band - WARP_SLACK cells (status 1 past it): ydrop16's
// rows of band / 2 words then never hold two of an anti-diagonal's pairs (k0 - 1 .. k1) in one word.
// runner.WARP_SLACK says the same to the host.
#define WARP_SLACK 4

// a wall row of four slots: two 16-byte words
struct Slots4 { int4 a, b; };

struct Task {
    long long t0, tstep, tn, q0, qstep, qn, barrier, wq0, wt0;
};


// Live range and best substitution cell (ties: smaller i) of an anti-diagonal,
// over the group: warp reductions. WIDE: each warp's lane 0 writes its
// warp's share to its slot of red[d % 2] (plain stores), one __syncthreads,
// then lane w of every warp reads warp w's share and the warp folds them the
// same way. The slots of d are written again only at d + 2, after the
// barrier of d + 1, which every thread passes after reading them. No
// atomics (a 64-bit shared atomicMax is a compare-and-swap loop).
struct Red { int nlo, nhi, m, at; };

template <bool WIDE>
__device__ __forceinline__ void group_reduce(int& nlo, int& nhi, int& dbest, int& dbi, Red* red, int d)
{
    nlo = __reduce_min_sync(FULL, nlo);
    nhi = __reduce_max_sync(FULL, nhi);
    int m = __reduce_max_sync(FULL, dbest);
    unsigned at = __reduce_min_sync(FULL, (dbi >= 0 && dbest == m) ? (unsigned)dbi : 0xffffffffu);
    if (WIDE) {
        Red* r = red + 32 * (d & 1);
        const int lane = threadIdx.x & 31;
        if (lane == 0) r[threadIdx.x >> 5] = {nlo, nhi, m, (int)at};
        __syncthreads();
        const Red x = lane < (int)(blockDim.x >> 5) ? r[lane] : Red{0x7fffffff, -0x7fffffff, NEG, -1};
        nlo = __reduce_min_sync(FULL, x.nlo);
        nhi = __reduce_max_sync(FULL, x.nhi);
        m = __reduce_max_sync(FULL, x.m);
        at = __reduce_min_sync(FULL, x.m == m ? (unsigned)x.at : 0xffffffffu);
    } else {
        __syncwarp();
    }
    dbest = m;
    dbi = at == 0xffffffffu ? -1 : (int)at;
}

// Where a sweep stands after anti-diagonal d (mode 3, and the rows at the best): header d, lo1, hi1,
// lo2, hi2 (live ranges of d and d - 1), best, bi, bj, cells, done, the rows' first i and width,
// traced_to, status, and the sum over anti-diagonals 1..d of the best score before each (the
// floors' sum, low and high 32 bits: the host's path check, gpu/gapped._path_holds); then H of d,
// H of d - 1, E and F of d over the union of the live ranges, NEG outside each row's own range, in
// rows of w + 2 ints (a header d of -1 where they are wider). cell(row, i): cell i of a row as an int.
template <class Cell>
__device__ __forceinline__ void dump_cells(int* out, int w, Cell cell, int h_last, int h_before, int e_last,
                                           int f_last, int rank, int gsize, int d, int lo1, int hi1, int lo2, int hi2,
                                           int best, int bi, int bj, long long cells, int done, int traced_to,
                                           int status, long long bsum)
{
    int lo = lo1, hi = hi1;
    if (hi2 > lo2) { lo = lo2 < lo1 ? lo2 : lo1; hi = hi2 > hi1 ? hi2 : hi1; }
    const int n = done ? 0 : hi - lo;
    const int stride = w + 2;
    if (n > stride) { if (rank == 0) out[0] = -1; return; }
    if (rank == 0) {
        out[0] = d; out[1] = lo1; out[2] = hi1; out[3] = lo2; out[4] = hi2; out[5] = best; out[6] = bi;
        out[7] = bj; out[8] = (int)cells; out[9] = done; out[10] = lo; out[11] = n; out[12] = traced_to;
        out[13] = status; out[14] = (int)(bsum & 0xffffffffLL); out[15] = (int)(bsum >> 32);
    }
    int* r = out + DUMP_HEAD;
    for (int x = rank; x < n; x += gsize) {
        const int i = lo + x;
        const bool in1 = i >= lo1 && i < hi1, in2 = i >= lo2 && i < hi2;
        r[x] = in1 ? cell(h_last, i) : NEG;
        r[stride + x] = in2 ? cell(h_before, i) : NEG;
        r[2 * stride + x] = in1 ? cell(e_last, i) : NEG;
        r[3 * stride + x] = in1 ? cell(f_last, i) : NEG;
    }
}

// dump_cells over rows of ints, cell i of a row at row + (i & mask)
__device__ __forceinline__ void dump_state(int* out, int w, const int* rows, int h_last, int h_before,
                                           int e_last, int f_last, int mask, int rank, int gsize, int d, int lo1,
                                           int hi1, int lo2, int hi2, int best, int bi, int bj, long long cells,
                                           int done, int traced_to, int status, long long bsum)
{
    auto cell = [&](int row, int i) { return rows[row + (i & mask)]; };
    dump_cells(out, w, cell, h_last, h_before, e_last, f_last, rank, gsize, d, lo1, hi1, lo2, hi2, best, bi, bj, cells,
               done, traced_to, status, bsum);
}

// The stop rule at the stale best (see the top): at anti-diagonal d, the stale run's final best
// anti-diagonal, this run's best is the stale one's cell and score, and its rows (H of d and
// d - 1 over their live ranges [lo1, hi1) and [lo2, hi2), E and F of d) are nowhere above the
// stale rows st (dump_state's form). Uniform over the group.
template <bool WIDE>
__device__ __noinline__ bool at_stale_best(const int* __restrict__ st, int w, const int* rows, int h_last,
                                              int h_before, int e_last, int f_last, int mask, int rank, int gsize,
                                              int lo1, int hi1, int lo2, int hi2, int best, int bi, int bj)
{
    if (best != st[5] || bi != st[6] || bj != st[7]) return false;
    const int slo = st[10], sn = st[11], stride = w + 2;
    int lo = slo, hi = slo + sn;
    if (hi1 > lo1) { lo = lo1 < lo ? lo1 : lo; hi = hi1 > hi ? hi1 : hi; }
    if (hi2 > lo2) { lo = lo2 < lo ? lo2 : lo; hi = hi2 > hi ? hi2 : hi; }
    const int* r = st + DUMP_HEAD;
    bool ok = true;
    for (int i = lo + rank; i < hi && ok; i += gsize) {
        const int s = i - slo;
        const bool ins = s >= 0 && s < sn, in1 = i >= lo1 && i < hi1, in2 = i >= lo2 && i < hi2;
        const int x = i & mask;
        ok = (in1 ? rows[h_last + x] : NEG) <= (ins ? r[s] : NEG) &&
             (in2 ? rows[h_before + x] : NEG) <= (ins ? r[stride + s] : NEG) &&
             (in1 ? rows[e_last + x] : NEG) <= (ins ? r[2 * stride + s] : NEG) &&
             (in1 ? rows[f_last + x] : NEG) <= (ins ? r[3 * stride + s] : NEG);
    }
    if (WIDE) return __syncthreads_and(ok);
    return __all_sync(FULL, ok);
}

// Is x in [lo, hi) (lo <= hi)? (unsigned)(x - lo) < (unsigned)(hi - lo): one compare, not two.
__device__ __forceinline__ bool in_range(int lo, int hi, int x)
{
    return (unsigned)(x - lo) < (unsigned)(hi - lo);
}

// Is query position lq inside one of a target row's wall slots ([lo, hi) each, as two ints)?
// Slots fill in order and an empty one is (0, 0) (cpu/gapped.mark_walls; rows are zeroed when
// freed), so every slot can be tested where the CPU twin stops at the first empty one: an empty
// slot holds nothing. Positions are 32-bit, as the walls themselves.
__device__ __forceinline__ bool on_wall(int4 wa, int4 wb, const int* w, int nslot, int lq)
{
    if (nslot == 4) return in_range(wa.x, wa.y, lq) | in_range(wa.z, wa.w, lq) | in_range(wb.x, wb.y, lq) |
                           in_range(wb.z, wb.w, lq);
    bool hit = false;
    for (int k = 0; k < nslot; ++k) hit |= in_range(w[2 * k], w[2 * k + 1], lq);
    return hit;
}

// A reach of more grid blocks than this is not tested (walls_in_reach).
#define GRID_TEST_MAX 4096

// The wall grid: bit tb * cols + qb marks a block of 2^shift target rows by 2^shift query positions
// that holds a wall (kernel wall_grid_mark; never cleared, so it covers any snapshot of the walls).
struct WallGrid { const unsigned* bits; int shift, cols, qmax; };

// Does a block of the grid that holds target rows wt0 + ts j, j in [j0, j1], by query positions
// wq0 + qs i, i in [i0, i1], hold a wall? Uniform over the warp (every warp of a block alike).
__device__ __forceinline__ bool walls_in_box(const WallGrid& g, long long wt0, int ts, long long j0, long long j1,
                                             long long wq0, int qs, long long i0, long long i1)
{
    long long ra = wt0 + ts * j0, rb = wt0 + ts * j1;
    long long qa = wq0 + qs * i0, qb = wq0 + qs * i1;
    if (ra > rb) { const long long x = ra; ra = rb; rb = x; }
    if (qa > qb) { const long long x = qa; qa = qb; qb = x; }
    qa = max(qa, 0LL); qb = min(qb, (long long)g.qmax);
    const long long t0 = max(ra, 0LL) >> g.shift, t1 = rb >> g.shift, q0 = qa >> g.shift, q1 = qb >> g.shift;
    const long long nq = q1 - q0 + 1, n = nq * (t1 - t0 + 1);
    if (n > GRID_TEST_MAX) return true;   // a reach too wide to test (a round's whole side): walls assumed
    bool hit = false;
    for (long long x = threadIdx.x & 31; x < n && !hit; x += 32) {
        const long long bit = (t0 + x / nq) * g.cols + q0 + x % nq;
        hit = (g.bits[bit >> 5] >> (bit & 31)) & 1u;
    }
    return __any_sync(FULL, hit);
}

// Does the grid hold a wall where the side's first dcap anti-diagonals can reach (i and j up to dcap)?
__device__ __forceinline__ bool walls_in_reach(const WallGrid& g, long long wt0, int ts, int tn, long long wq0,
                                               int qs, int qn, int dcap)
{
    return walls_in_box(g, wt0, ts, 0, min(tn, dcap), wq0, qs, 0, min(qn, dcap));
}

// Anti-diagonals whose cells one test of the grid covers (walls_ahead).
#define WALL_STRETCH 512

// Does the grid hold a wall where anti-diagonals d .. d + WALL_STRETCH - 1 can reach, given the live
// ranges [lo1, hi1) and [lo2, hi2) of d - 1 and d - 2? No later anti-diagonal starts below the
// smaller of lo1 and lo2 (antidiagonal_cells: lo >= min(lo1, lo2 + 1), and the live range lies
// within), and each ends at most one cell past the larger end before it, so the stretch's cells
// have i in [m, M + S - 1] and j = d' - i in [d - M - S + 1, d + S - 1 - m] (S the stretch, m and M
// those bounds), within the side.
__device__ __forceinline__ bool walls_ahead(const WallGrid& g, long long wt0, int ts, int tn, long long wq0, int qs,
                                            int qn, int d, int lo1, int hi1, int lo2, int hi2)
{
    const long long m = min(lo1, lo2), M = max(hi1, hi2), S = WALL_STRETCH;
    const long long i0 = max(m, 0LL), i1 = min(M + S - 1, (long long)qn);
    const long long j0 = max(d - M - S + 1, 0LL), j1 = min(d + S - 1 - m, (long long)tn);
    return i0 <= i1 && j0 <= j1 && walls_in_box(g, wt0, ts, j0, j1, wq0, qs, i0, i1);
}

// Loads that stay where they are written (a plain load whose value is used only behind a branch
// may be moved behind it, and then waits there): the inspector's reads one step ahead, and a
// cell's second wall word, which the general cell loop reads before its rules.
__device__ __forceinline__ int4 load_ahead(const int4* p)
{
    int4 v;
    asm volatile("ld.global.nc.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}

__device__ __forceinline__ int load_ahead(const unsigned char* p)
{
    unsigned short v;
    asm volatile("ld.global.nc.u8 %0, [%1];" : "=h"(v) : "l"(p));
    return v;
}

// One anti-diagonal d of the inspector (ydrop_task's SCORE case: mode 0, 4 wall slots), cells
// [lo, hi) over the group, with the rules of ydrop_task's cell loop as max operations (the same
// scores: the best cell is a substitution cell, whose term wins ties). A cell's letters and wall
// row are read one step ahead, while the step before computes: each costs a trip to L2 (the
// rows of shared memory leave the L1 cache little room), which the step's own reads would wait
// on. nlo, nhi, dbest and dbi are the thread's share, as in the cell loop.
template <bool WIDE, bool WALLS>
__device__ __forceinline__ void score_antidiagonal(
    int d, int lo, int hi, int rank, int gsize, int mask, const unsigned char* tlet, const unsigned char* qlet, int ts,
    int qs, int tn, int qn, const Slots4* wall4, int wq0i, int bar, const int* mat, int goe, int gap_ext, int floor1,
    int lo1, int hi1, int lo2, int hi2, const int* HA, const int* HB, int* HC, const int* EB, int* EA, const int* FB,
    int* FA, int& nlo, int& nhi, int& dbest, int& dbi)
{
    // the letters and wall row of cell i (clamped on the edges, where they are not used)
    auto fetch = [&](int i, int& tc, int& qc, int4& wa, int4& wb) {
        const int j = d - i;
        tc = tn > 0 ? load_ahead(tlet + ts * max(j - 1, 0)) : 0;
        qc = qn > 0 ? load_ahead(qlet + qs * max(i - 1, 0)) : 0;
        if (WALLS) {
            const Slots4* row = wall4 + ts * j;
            wa = load_ahead(&row->a);
            wb = load_ahead(&row->b);
        }
    };
    int i = lo + rank < hi ? lo + rank : lo;   // a thread past hi reads cell lo
    int tc, qc;
    int4 wa = make_int4(0, 0, 0, 0), wb = wa;
    fetch(i, tc, qc, wa, wb);
    for (int base = lo; base < hi; base += gsize) {
        if (WIDE && base + (rank & ~31) >= hi) break;
        const int next = base + gsize + rank < hi ? base + gsize + rank : lo;
        int tcn = 0, qcn = 0;
        int4 wan = wa, wbn = wb;
        if (base + gsize < hi) fetch(next, tcn, qcn, wan, wbn);
        const int j = d - i;
        const int hdiag = HA[(i - 1) & mask], hup = HB[i & mask], eup = EB[i & mask];
        const int hleft = HB[(i - 1) & mask], fleft = FB[(i - 1) & mask];
        if (base + rank < hi) {
            // the live ranges imply the edge tests: lo1, lo2 >= 0 (so i >= 1 where i - 1 is in
            // one), hi1 <= d and hi2 <= d - 1 (so j >= 1 where i, or i - 1 for sub, is in one)
            const int sub = in_range(lo2, hi2, i - 1) && hdiag > NEG ? hdiag + mat[tc << 3 | qc] : NEG;
            const int e = in_range(lo1, hi1, i) ? max(max(hup - goe, eup - gap_ext), NEG) : NEG;
            const int f = in_range(lo1, hi1, i - 1) ? max(max(hleft - goe, fleft - gap_ext), NEG) : NEG;
            const int g = max(e, f);
            const int h = max(sub, g);
            const bool dead = h < floor1 || j - i == bar ||
                              (WALLS && wa.y != 0 && on_wall(wa, wb, nullptr, 4, wq0i + qs * i));
            const int x = i & mask;
            HC[x] = dead ? NEG : h; EA[x] = dead ? NEG : e; FA[x] = dead ? NEG : f;
            if (!dead) {
                nlo = min(nlo, i);
                nhi = i + 1;
                if (sub >= g && h > dbest) { dbest = h; dbi = i; }
            }
        }
        i = next; tc = tcn; qc = qcn; wa = wan; wb = wbn;
    }
}

// The cells [lo, hi) of anti-diagonal d: one past the live ranges of d - 1 ([lo1, hi1)) and d - 2
// ([lo2, hi2)), within the side (tn target and qn query letters); empty where lo >= hi.
__device__ __forceinline__ void antidiagonal_cells(int d, int lo1, int hi1, int lo2, int hi2, int tn, int qn, int& lo,
                                                   int& hi)
{
    lo = lo1 < lo2 + 1 ? lo1 : lo2 + 1;
    hi = hi1 + 1 > hi2 + 1 ? hi1 + 1 : hi2 + 1;
    if (lo < d - tn) lo = d - tn;
    if (lo < 0) lo = 0;
    if (hi > qn + 1) hi = qn + 1;
    if (hi > d + 1) hi = d + 1;
}

// The region a sweep explored (R_IMAX .. R_KMAX): its query and target reach and its diagonal range.
struct Region {
    int imax = 0, jmax = 0, kmin = 0, kmax = 0;
    __device__ __forceinline__ void grow(int d, int lo, int hi)
    {
        if (hi - 1 > imax) imax = hi - 1;
        if (d - lo > jmax) jmax = d - lo;
        if (d - 2 * (hi - 1) < kmin) kmin = d - 2 * (hi - 1);
        if (d - 2 * lo > kmax) kmax = d - 2 * lo;
    }
};

// After anti-diagonal d (live range [nlo, nhi)): its rows become the ones before (H of d - 2, d - 1
// and d rotate; E and F of d - 1 and d swap), and the live ranges shift.
__device__ __forceinline__ void next_antidiagonal(int& hA, int& hB, int& hC, int& eA, int& eB, int& fA, int& fB,
                                                  int& lo1, int& hi1, int& lo2, int& hi2, int nlo, int nhi)
{
    int tmp = hA; hA = hB; hB = hC; hC = tmp;
    tmp = eA; eA = eB; eB = tmp;
    tmp = fA; fA = fB; fB = tmp;
    lo2 = lo1; hi2 = hi1;
    lo1 = nlo; hi1 = nhi;
}

// A task's inspector results (R_N columns of res); an abandoned side (status 2) reports all it explored.
__device__ __forceinline__ void write_results(long long* __restrict__ res, int task, int best, int bi, int bj,
                                              long long cells, long long cab, Region at_best, const Region& all,
                                              int status, int last, bool traced, bool stopped)
{
    if (status == 2) at_best = all;
    long long* r = res + (long long)R_N * task;
    r[R_BEST] = best; r[R_BI] = bi; r[R_BJ] = bj; r[R_CELLS] = cells; r[R_CELLS_AT_BEST] = cab;
    r[R_IMAX] = at_best.imax; r[R_JMAX] = at_best.jmax; r[R_KMIN] = at_best.kmin; r[R_KMAX] = at_best.kmax;
    r[R_STATUS] = status; r[R_DIAGS] = last; r[R_TRACED] = traced; r[R_STOPPED] = stopped;
}

// SCORE: mode 0 with 4 wall slots compiled on its own (the inspector of the waves, where 98 % of
// the cells lie): no traceback bits, kept rows or stops, and its anti-diagonals swept by
// score_antidiagonal. SLOTS4: 4 wall slots (gpukernels.gapped.WALL_SLOTS), known to the compiler (the
// other count's address arithmetic, even predicated off, costs issue slots of every cell). WALLS false:
// a side whose reach holds no wall (walls_in_reach, blocks only), built with no wall reads.
template <bool WIDE, bool CHUNK, bool SCORE, bool SLOTS4, bool WALLS = true>
__device__ __forceinline__ void ydrop_task(const unsigned char* __restrict__ t, const unsigned char* __restrict__ q,
                                 const long long* __restrict__ tasks, int task, const int* __restrict__ mat,
                                 int msize, int gap_open, int gap_ext, int ydrop, const int* __restrict__ walls,
                                 int nslot_in, int band, int mode_in, int dcap, long long* __restrict__ res,
                                 const long long* __restrict__ dstop_arr, const long long* __restrict__ tb_base,
                                 const long long* __restrict__ ad_base, unsigned char* __restrict__ tb,
                                 int* __restrict__ tb_lo, long long* __restrict__ tb_off, int* __restrict__ tb_rec,
                                 const long long* __restrict__ dump_at, const long long* __restrict__ slots,
                                 int* __restrict__ dump, int dump_w, int* rows, Red* red)
{
    const int mode = SCORE ? 0 : CHUNK ? 3 : mode_in;   // ydrop_chunk runs mode 3 only
    const int nslot = SLOTS4 ? 4 : nslot_in;
    const int rank = WIDE ? (int)threadIdx.x : (int)(threadIdx.x & 31);
    const int gsize = WIDE ? (int)blockDim.x : 32;
    const long long* tp = tasks + 9LL * task;
    const long long t0 = tp[0], tstep = tp[1], tnl = tp[2], q0 = tp[3], qstep = tp[4], qnl = tp[5];
    const long long barrier = tp[6], wq0 = tp[7], wt0 = tp[8];
    const int tn = (int)tnl, qn = (int)qnl;
    const int mask = band - 1;
    // the barrier diagonal as an int (j - i never reaches INT_MIN: no barrier) and the walls' query
    // position of cell i, wq0i + qs * i, in 32 bits as the walls hold it
    const int bar = (barrier >= -0x7fffffffLL && barrier <= 0x7fffffffLL) ? (int)barrier : (int)0x80000000;
    const int wq0i = (int)wq0;
    // per-task bases, so a cell's addresses take 32-bit products (a side is under 2^30 letters,
    // gpu/gapped._MAXLEN) added to a pointer: letter j - 1 of the side at tlet[ts * (j - 1)], its
    // wall row (nslot pairs of ints) at wall0 + ts * j rows, one Slots4 where nslot is 4
    const unsigned char* tlet = t + t0;
    const unsigned char* qlet = q + q0;
    const int ts = (int)tstep, qs = (int)qstep;
    const int* wall0 = walls + wt0 * nslot * 2;
    const Slots4* wall4 = (const Slots4*)wall0;
    // row offsets: H for d-2, d-1, d; E and F for d-1 and d (rotated each step)
    int hA = 0, hB = band, hC = 2 * band, eA = 3 * band, eB = 4 * band, fA = 5 * band, fB = 6 * band;
    const int goe = gap_open + gap_ext;
    const long long dstop = (mode == 1 || CHUNK) ? dstop_arr[task] : (1LL << 62);
    const long long tbb = mode ? tb_base[task] : 0;
    const long long adb = mode ? ad_base[task] : 0;
    // modes 2 and 3: the task's room for traceback bytes and anti-diagonal rows (the next task's base)
    const long long tbcap = mode >= 2 ? tb_base[task + 1] - tbb : (1LL << 62);
    const long long adcap = mode >= 2 ? ad_base[task + 1] - adb : (1LL << 62);
    // mode 3: the states after anti-diagonal dump_at and at the end (d of -1: not reached)
    const int dchk = CHUNK ? (int)dump_at[task] : -1;
    int* dump_chk = CHUNK ? dump + (long long)task * 2 * (DUMP_HEAD + 4 * (band + 2)) : nullptr;
    int* dump_end = CHUNK ? dump_chk + DUMP_HEAD + 4 * (band + 2) : nullptr;
    if (CHUNK && rank == 0) { dump_chk[0] = -1; dump_end[0] = -1; }
    // modes 1 and 2: where the rows at the best go, and mode 2's stale run (anti-diagonal dstale)
    int* keep = nullptr;
    const int* stale = nullptr;
    int dstale = -1;
    if (!CHUNK && mode != 0 && dump_w > 0) {
        const long long at = (long long)DUMP_HEAD + 4LL * (dump_w + 2);
        if (slots[2 * task] >= 0) keep = dump + slots[2 * task] * at;
        if (mode == 2 && slots[2 * task + 1] >= 0) stale = dump + slots[2 * task + 1] * at;
        if (keep && rank == 0) keep[0] = -1;
        if (stale && goe > 0 && stale[0] >= 1 && stale[6] + stale[7] == stale[0]) dstale = stale[0];
    }
    bool stopped = false;   // mode 2: stopped at the stale best, result final
    bool ended = false;   // the extension ended (not stopped at dstop or abandoned)
    bool tracing = mode != 0;
    int traced_to = 0;
    if (rank == 0) { rows[hB] = 0; rows[eB] = NEG; rows[fB] = NEG; }
    if (WIDE) __syncthreads(); else __syncwarp();
    int lo1 = 0, hi1 = 1, lo2 = 0, hi2 = 0;
    int best = 0, bi = 0, bj = 0;
    long long cells = 0, cab = 0;
    long long bsum = 0;     // the best before each anti-diagonal, summed (dump_state)
    int status = 0, last = 0;
    Region reg, breg;   // the region explored, and at the best
    int d = 0;
    while (true) {
        ++d;
        // mode 3: after anti-diagonal dchk, alive (the rows of d - 1 and d - 2 are intact until d's writes)
        if (CHUNK && d - 1 == dchk)
            dump_state(dump_chk, band, rows, hB, hA, eB, fB, mask, rank, gsize, d - 1, lo1, hi1, lo2, hi2, best, bi,
                       bj, cells, 0, traced_to, status, bsum);
        if ((long long)d > (long long)qn + tn) { ended = true; break; }
        if (d > dstop) break;
        if (mode != 1 && d > dcap) { status = 2; break; }
        int lo, hi;
        antidiagonal_cells(d, lo1, hi1, lo2, hi2, tn, qn, lo, hi);
        if (lo >= hi) { ended = true; break; }
        if (hi - lo > band - (WIDE ? 0 : WARP_SLACK)) { status = 1; break; }
        if (tracing && (cells + (hi - lo) > tbcap || d >= adcap)) tracing = false;   // mode 2 out of room
        if (tracing) traced_to = d;
        if (tracing && rank == 0) { tb_lo[adb + d] = lo; tb_off[adb + d] = cells; }
        const int floor1 = max(best - ydrop, NEG + 1);   // a cell below it is dead (h < floor or h <= NEG)
        bsum += best;
        int dbest = NEG, dbi = -1, nlo = hi, nhi = lo;
        const int* HA = rows + hA; const int* HB = rows + hB; int* HC = rows + hC;
        const int* EB = rows + eB; int* EA = rows + eA;
        const int* FB = rows + fB; int* FA = rows + fA;
        if (SCORE)
            score_antidiagonal<WIDE, WALLS>(d, lo, hi, rank, gsize, mask, tlet, qlet, ts, qs, tn, qn, wall4, wq0i, bar, mat, goe,
                                     gap_ext, floor1, lo1, hi1, lo2, hi2, HA, HB, HC, EB, EA, FB, FA, nlo, nhi, dbest,
                                     dbi);
        else for (int base = lo; base < hi; base += gsize) {
            // a warp wholly past hi stops before its reads (a wide block's last warps, most
            // anti-diagonals: their reads were issued, then waited for before the reductions)
            if (WIDE && base + (rank & ~31) >= hi) break;
            // every read of the cell first, before any of them is needed: its letters (clamped to
            // the side's first letter on the edges, where they are not used), its wall slots (all
            // four as two 16-byte words where nslot is 4, the first one otherwise), and its
            // neighbours in the rows of d - 1 and d - 2 (never the rows of d; the indexes are
            // masked, so a neighbour the rules do not use is a harmless read). A
            // thread past hi reads cell lo and stops after its reads, so the reads are not held
            // behind a branch. One latency for all of them instead of a chain: the wide round
            // 0.89 -> 0.62 us per anti-diagonal on the H100.
            const int i = base + rank < hi ? base + rank : lo;
            const int j = d - i;
            const int tc = tn > 0 ? tlet[ts * (j >= 1 ? j - 1 : 0)] : 0;
            const int qc = qn > 0 ? qlet[qs * (i >= 1 ? i - 1 : 0)] : 0;
            const int* w = wall0;   // the row, where nslot is not 4
            int4 wa = make_int4(0, 0, 0, 0), wb = wa;
            if (WALLS && nslot == 4) {
                wa = load_ahead(&wall4[ts * j].a);
                wb = load_ahead(&wall4[ts * j].b);
            } else if (WALLS) {
                w += (long long)(ts * j) * (2 * nslot);
                wa.y = w[1];
            }
            const int hdiag = HA[(i - 1) & mask], hup = HB[i & mask], eup = EB[i & mask];
            const int hleft = HB[(i - 1) & mask], fleft = FB[(i - 1) & mask];
            if (base + rank >= hi) break;
            const bool walled = WALLS && wa.y != 0 && on_wall(wa, wb, w, nslot, wq0i + qs * i);
            const int x = i & mask;
            int sub = NEG;
            if (i >= 1 && j >= 1 && i - 1 >= lo2 && i - 1 < hi2 && hdiag > NEG) sub = hdiag + mat[tc << 3 | qc];
            int e = NEG, ebit = 0;
            if (j >= 1 && i >= lo1 && i < hi1) {
                int e_open = hup - goe;
                int e_ext = eup - gap_ext;
                if (e_ext > e_open) { e = e_ext; ebit = 4; } else e = e_open;
                if (e < NEG) e = NEG;
            }
            int f = NEG, fbit = 0;
            if (i >= 1 && i - 1 >= lo1 && i - 1 < hi1) {
                int f_open = hleft - goe;
                int f_ext = fleft - gap_ext;
                if (f_ext > f_open) { f = f_ext; fbit = 8; } else f = f_open;
                if (f < NEG) f = NEG;
            }
            int h = sub, src = 0;
            if (e > h) { h = e; src = 1; }
            if (f > h) { h = f; src = 2; }
            if (h < floor1 || j - i == bar || walled) {
                HC[x] = NEG; EA[x] = NEG; FA[x] = NEG;
                if (tracing) tb[tbb + cells + (i - lo)] = 0;
                continue;
            }
            HC[x] = h; EA[x] = e; FA[x] = f;
            if (tracing) tb[tbb + cells + (i - lo)] = (unsigned char)(src | ebit | fbit);
            if (i < nlo) nlo = i;
            nhi = i + 1;
            if (src == 0 && h > dbest) { dbest = h; dbi = i; }
        }
        group_reduce<WIDE>(nlo, nhi, dbest, dbi, red, d);
        cells += hi - lo;
        reg.grow(d, lo, hi);
        last = d;
        if (nlo >= nhi) { ended = true; break; }
        // the records (modes 1 and 2, where tb_rec is given): the cell where the best rose, for ydrop_trace's routes
        if (tb_rec && tracing && rank == 0) tb_rec[adb + d] = (dbi >= 0 && dbest > best) ? dbi : -1;
        if (dbi >= 0 && dbest >= best) {
            best = dbest; bi = dbi; bj = d - dbi; cab = cells;
            breg = reg;
            // the rows of d are complete (the reduction's barrier), those of d - 1 intact until d + 2
            if (keep && (mode == 2 || d == dstop))
                dump_state(keep, dump_w, rows, hC, hB, eA, fA, mask, rank, gsize, d, nlo, nhi, lo1, hi1, best, bi,
                           bj, cells, 0, traced_to, status, bsum);
        }
        if (d == dstale && at_stale_best<WIDE>(stale, dump_w, rows, hC, hB, eA, fA, mask, rank, gsize, nlo, nhi,
                                               lo1, hi1, best, bi, bj)) {
            stopped = true;
            break;
        }
        next_antidiagonal(hA, hB, hC, eA, eB, fA, fB, lo1, hi1, lo2, hi2, nlo, nhi);
    }
    if (CHUNK)   // after the loop's last barrier: every row write of the last anti-diagonal is done
        dump_state(dump_end, band, rows, hB, hA, eB, fB, mask, rank, gsize, last, lo1, hi1, lo2, hi2, best, bi, bj,
                   cells, ended, traced_to, status, bsum);
    if (rank == 0 && mode != 1)
        write_results(res, task, best, bi, bj, cells, cab, breg, reg, status, last, mode >= 2 && bi + bj <= traced_to,
                      stopped);
}

#define YDROP_PARAMS const unsigned char* __restrict__ t, const unsigned char* __restrict__ q, \
    const long long* __restrict__ tasks, int ntasks, const int* __restrict__ matrix, int msize, int gap_open, \
    int gap_ext, int ydrop, const int* __restrict__ walls, int nslot, int band, int mode, int dcap, \
    long long* __restrict__ res, const long long* __restrict__ dstop_arr, const long long* __restrict__ tb_base, \
    const long long* __restrict__ ad_base, unsigned char* __restrict__ tb, int* __restrict__ tb_lo, \
    long long* __restrict__ tb_off, int* __restrict__ tb_rec, const long long* __restrict__ dump_at, \
    const long long* __restrict__ slots, int* __restrict__ dump, int dump_w
// a kernel's parameters passed on as they are
#define YDROP_ARGS_IN t, q, tasks, ntasks, matrix, msize, gap_open, gap_ext, ydrop, walls, nslot, band, mode, dcap, \
    res, dstop_arr, tb_base, ad_base, tb, tb_lo, tb_off, tb_rec, dump_at, slots, dump, dump_w
#define YDROP_ARGS t, q, tasks, task, mat, msize, gap_open, gap_ext, ydrop, walls, nslot, band, mode, dcap, res, \
    dstop_arr, tb_base, ad_base, tb, tb_lo, tb_off, tb_rec, dump_at, slots, dump, dump_w

// One task in the build of ydrop_task that fits it: the inspector's own (SCORE) for mode 0 with
// 4 wall slots, outside relay chunks; the general one with 4 slots known; any other slot count.
// walls_near false (blocks only, 4 slots): no wall lies within the task's reach, the build without wall reads.
template <bool WIDE, bool CHUNK>
__device__ __forceinline__ void run_task(const unsigned char* __restrict__ t, const unsigned char* __restrict__ q,
                                         const long long* __restrict__ tasks, int task, const int* __restrict__ mat,
                                         int msize, int gap_open, int gap_ext, int ydrop,
                                         const int* __restrict__ walls, int nslot, int band, int mode, int dcap,
                                         long long* __restrict__ res, const long long* __restrict__ dstop_arr,
                                         const long long* __restrict__ tb_base, const long long* __restrict__ ad_base,
                                         unsigned char* __restrict__ tb, int* __restrict__ tb_lo,
                                         long long* __restrict__ tb_off, int* __restrict__ tb_rec,
                                         const long long* __restrict__ dump_at,
                                         const long long* __restrict__ slots, int* __restrict__ dump, int dump_w,
                                         int* rows, Red* red, bool walls_near = true)
{
    if (nslot != 4) {
        ydrop_task<WIDE, CHUNK, false, false>(YDROP_ARGS, rows, red);
    } else if (!CHUNK && mode == 0) {
        if constexpr (WIDE)
            if (!walls_near) return ydrop_task<WIDE, false, true, true, false>(YDROP_ARGS, rows, red);
        ydrop_task<WIDE, false, true, true>(YDROP_ARGS, rows, red);
    } else {
        if constexpr (WIDE)
            if (!walls_near) return ydrop_task<WIDE, CHUNK, false, true, false>(YDROP_ARGS, rows, red);
        ydrop_task<WIDE, CHUNK, false, true>(YDROP_ARGS, rows, red);
    }
}

// The substitution scores sit in mat[64] in rows of 8 (msize <= 8, checked by the host), so a
// cell's lookup is a shift, not a multiply by msize. They lie at the base of the dynamic shared
// memory, before the rows (the host adds MAT_INTS ints to each launch's size): a cell then
// addresses them from the same base as its rows, where a static array's address took four
// instructions a cell to rebuild.
#define MAT_INTS 64
extern __shared__ int dyn_smem[];

__device__ __forceinline__ int* load_matrix(const int* __restrict__ matrix, int msize)
{
    for (int x = threadIdx.x; x < msize * msize; x += blockDim.x) dyn_smem[x / msize << 3 | x % msize] = matrix[x];
    __syncthreads();
    return dyn_smem;
}
// One warp per task at a time, blockDim.x / 32 warps per block (7 * band ints of shared memory
// each, after the matrix). Each warp takes the next task from a queue (*queue, zero at the launch) until none is
// left: a warp done with a short side goes on to the next task instead of idling beside a long
// one until its block ends, and the grid need only fill the device once (gpu/gapped.py sizes it).
extern "C" __global__ void ydrop(YDROP_PARAMS, int* __restrict__ queue)
{
    int* mat = load_matrix(matrix, msize);
    int* rows = dyn_smem + MAT_INTS + (size_t)(threadIdx.x >> 5) * 7 * band;
    while (true) {
        int task = 0;
        if ((threadIdx.x & 31) == 0) task = atomicAdd(queue, 1);
        task = __shfl_sync(FULL, task, 0);
        if (task >= ntasks) return;
        run_task<false, false>(YDROP_ARGS, rows, nullptr);
        __syncwarp();   // the task's last reads of its rows, before the next one's first writes
    }
}

// ---------------------------------------------------------------------------------------------
// The inspector in 16-bit pairs (kernel ydrop16; the executor exec16 below): ydrop's mode 0 with 4
// wall slots, one warp a task, with the same results, each thread computing two neighbouring cells (2k, 2k + 1) of an
// anti-diagonal in one 32-bit word with Hopper's DPX instructions (an add and a max, or a
// three-way max, of two 16-bit halves in one instruction). Why 16 bits hold the scores: a cell
// is alive only from best - ydrop to best + one substitution, and a dead cell's exact value
// never matters (the rules are monotone and the floor never falls, so no cell below it ever
// lifts a later cell above it). The rows hold scores less a base that follows the best
// (rebased when the best climbs REBASE16 past it, a rare sweep of four rows); dead cells hold
// neg = -(ydrop + 1402), whose sums with a score still lie below every floor, and substitution
// scores below -(ydrop + 1) count as -(ydrop + 1) (a separator's: dead either way), so that no
// sum wraps a half where the host launches it (gpu/runner.fits16: scores and gap costs at most
// 700, ydrop at most 15,000).
// Cells outside the live ranges read neg from the rows themselves: each anti-diagonal also
// writes its neighbours lo - 1 and hi dead (the pairs span cells lo - 1 .. hi, and the last
// step's lanes up to 63 cells past it, their halves outside [lo, hi) killed), where ydrop tests
// each read against the live ranges; its reads stay within one cell of the rows' computed ranges
// (lo >= min(lo1, lo2 + 1), hi <= max(hi1, hi2) + 1), so the rows hold 2 * band cells and never
// wrap onto themselves. A side reads its walls only where the wall grid marks a block that its
// next WALL_STRETCH anti-diagonals can reach (walls_ahead, tested once a stretch): a stretch with
// none sweeps in a build with no wall code at all (a build per side, by walls_in_reach over its
// first dcap anti-diagonals, took 9-12 % off both kernels' time on a wave), and a row's last two
// slots are read only where its second is taken. The best needs no test
// per cell: a thread keeps the largest live H it wrote, and only an anti-diagonal whose largest
// reaches the best (the y-drop tail, 98 % of the cells, never does) is swept again cell by cell
// for ydrop's rule (a substitution cell, the smallest i of the largest); the executor (exec16, up to
// the best, where the best rises on most anti-diagonals) keeps instead each thread's best live
// substitution cell as its pairs go. ydrop stays the twin both are checked against.
#define REBASE16 8192

__device__ __forceinline__ unsigned pack16x2(int lo, int hi) { return __byte_perm((unsigned)lo, (unsigned)hi, 0x5410); }
__device__ __forceinline__ int half16(unsigned v, int hi) { return hi ? (int)v >> 16 : (int)(short)(v & 0xffffu); }

// per half: all ones where the half is negative (its sign replicated)
__device__ __forceinline__ unsigned sign16x2(unsigned v)
{
    unsigned m;
    asm("prmt.b32 %0, %1, 0, 0xbb99;" : "=r"(m) : "r"(v));
    return m;
}

// cells (c - 1, c) of a row from its words k - 1 and k (c = 2k): the high half of one, the low of the other
__device__ __forceinline__ unsigned shifted16x2(unsigned before, unsigned at) { return __byte_perm(before, at, 0x5432); }

// neg2 in the halves where dead is set, v elsewhere
__device__ __forceinline__ unsigned kill16x2(unsigned v, unsigned dead, unsigned neg2) { return (v & ~dead) | (neg2 & dead); }

// A side's letters from s (side letter x at s[step * x], x clamped to 0 .. lim: the cells that
// read past the side are dead or outside the range; a side of no letters reads its sequence's first).
struct Side16 { const unsigned char* s; int step; unsigned lim; };

__device__ __forceinline__ Side16 side16(const unsigned char* seq, const unsigned char* first, int step, int n)
{
    return n > 0 ? Side16{first, step, (unsigned)(n - 1)} : Side16{seq, 0, 0u};
}

__device__ __forceinline__ int letter16(const Side16& sd, int x)
{
    return load_ahead(sd.s + sd.step * (int)min((unsigned)x, sd.lim));
}

// What one pair reads from global memory ahead of its step: its four letters and the first two wall
// slots of its two target rows (the other two are read where a row's second slot is taken). The letters
// stay as read until the step uses them: a shift right after the load (to index the matrix by bytes) made
// the warp wait for the load there, a step early, and the inspector 8 % slower.
struct PairReads { int t0, t1, q0, q1; int4 a0, a1; };

__device__ __forceinline__ const Slots4* wall_row16(const Slots4* wall4, int ts, int tn, int j)
{
    return wall4 + ts * (int)min((unsigned)j, (unsigned)tn);
}

__device__ __forceinline__ void pair_reads(PairReads& r, int d, int k, const Side16& ts16, const Side16& qs16,
                                           int ts, int tn, const Slots4* wall4, bool walls_on)
{
    const int j0 = d - 2 * k;   // cell 2k's j; cell 2k + 1's is j0 - 1
    r.t0 = letter16(ts16, j0 - 1);
    r.t1 = letter16(ts16, j0 - 2);
    r.q0 = letter16(qs16, 2 * k - 1);
    r.q1 = letter16(qs16, 2 * k);
    if (walls_on) {
        r.a0 = load_ahead(&wall_row16(wall4, ts, tn, j0)->a);
        r.a1 = load_ahead(&wall_row16(wall4, ts, tn, j0 - 1)->a);
    } else {
        r.a0 = r.a1 = make_int4(0, 0, 0, 0);
    }
}

// Is query position lq inside one of a wall row's first two slots (a), or, where the second is
// taken (slots fill in order), one of the other two (read now from the row)?
__device__ __forceinline__ bool walled16(int4 a, const Slots4* row, int lq, bool any_more)
{
    bool hit = in_range(a.x, a.y, lq) | in_range(a.z, a.w, lq);
    if (any_more && a.w != 0) {
        const int4 b = row->b;
        hit |= in_range(b.x, b.y, lq) | in_range(b.z, b.w, lq);
    }
    return hit;
}

// The executor's part of a 16-bit task (kernel exec16, ydrop's mode 1): each task's anti-diagonal
// where it stops, the bases of its traceback bytes and anti-diagonal rows, and where it keeps its rows
// at the best (slots and dump as ydrop's, dump_w 0: none kept).
struct Exec16 {
    const long long* dstop; const long long* tb_base; const long long* ad_base; unsigned char* tb; int* tb_lo;
    long long* tb_off; int* tb_rec; const long long* slots; int* dump; int dump_w;
};

// per half: all ones where a and b differ
__device__ __forceinline__ unsigned differ16x2(unsigned a, unsigned b)
{
    const unsigned x = a ^ b;
    return ((x & 0xffffu) ? 0xffffu : 0u) | ((x >> 16) ? 0xffff0000u : 0u);
}

// One task in 16-bit pairs. EXEC: the executor (ydrop's mode 1 with 4 wall slots): anti-diagonals
// 1..dstop only, each cell's traceback byte (src | 4 if E extends | 8 if F extends; 0 where dead) and
// each anti-diagonal's first cell and offset written as ydrop writes them, and the rows at the best at
// dstop kept in dump_state's form (the base added back, dead cells NEG: every stored value is exact or
// dead, since an E or F below neg needs a dead cell before it, whose E and F are dead too). The bytes
// of live cells are ydrop's; a byte's E or F bit may differ where that E or F is dead, which no path
// reads (a path in a gap stays above the floor). No results are written.
template <bool B> struct Flag { static constexpr bool value = B; };

template <bool EXEC>
__device__ __forceinline__ void pairs16_task(const unsigned char* __restrict__ t, const unsigned char* __restrict__ q,
                                             const long long* __restrict__ tasks, int task, const int* mat,
                                             int gap_open, int gap_ext, int ydrop, const int* __restrict__ walls,
                                             int band, int dcap, long long* __restrict__ res, unsigned* rows,
                                             const WallGrid& grid, const Exec16& ex)
{
    const int lane = threadIdx.x & 31;
    const long long* tp = tasks + 9LL * task;
    const long long t0 = tp[0], tstep = tp[1], q0 = tp[3], qstep = tp[4];
    const long long barrier = tp[6], wq0 = tp[7], wt0 = tp[8];
    const int tn = (int)tp[2], qn = (int)tp[5];
    const int bar = (barrier >= -0x7fffffffLL && barrier <= 0x7fffffffLL) ? (int)barrier : (int)0x80000000;
    const int wq0i = (int)wq0;
    const unsigned char* tlet = t + t0;
    const unsigned char* qlet = q + q0;
    const int ts = (int)tstep, qs = (int)qstep;
    const Slots4* wall4 = (const Slots4*)(walls + wt0 * 8);
    const Side16 ts16 = side16(t, tlet, ts, tn), qs16 = side16(q, qlet, qs, qn);
    // the executor: its stop, its traceback bytes and rows, and where its rows at the best go
    const int dstop = EXEC ? (int)min(ex.dstop[task], (long long)(1 << 30)) : 0;
    unsigned char* tbt = EXEC ? ex.tb + ex.tb_base[task] : nullptr;
    int* tlo = EXEC ? ex.tb_lo + ex.ad_base[task] : nullptr;
    long long* toff = EXEC ? ex.tb_off + ex.ad_base[task] : nullptr;
    int* trec = EXEC && ex.tb_rec ? ex.tb_rec + ex.ad_base[task] : nullptr;
    int* keep = nullptr;
    if (EXEC && ex.dump_w > 0 && ex.slots[2 * task] >= 0)
        keep = ex.dump + ex.slots[2 * task] * ((long long)DUMP_HEAD + 4LL * (ex.dump_w + 2));
    if (keep && lane == 0) keep[0] = -1;
    // the wall grid tested once a stretch of anti-diagonals (walls_ahead): a stretch with no wall in
    // reach runs the sweep built without the wall reads
    bool walls_on = true;
    int walls_until = 0;
    // cell c in word (c >> 1) & mask, half c & 1: rows of band / 2 words (an anti-diagonal's pairs, at most
    // (band - WARP_SLACK) / 2 + 2 of them, in distinct words), half the shared memory of ydrop's rows
    const int rw = band >> 1, mask = rw - 1;
    // the rows' byte offsets in the warp's rows (H of d - 2, d - 1, d; E and F of d, d - 1): word w of row
    // r at row_at(r, w)
    const int rb = 4 * rw;
    int hA = 0, hB = rb, hC = 2 * rb, eA = 3 * rb, eB = 4 * rb, fA = 5 * rb, fB = 6 * rb;
    const unsigned wbase = (unsigned)(rows - (unsigned*)dyn_smem);
    // the inspector: 4 as the compiler cannot know it (band < 2^30), so that a word's address w * four + the
    // row's start takes an IMAD, on the FMA pipe, where w << 2 took a LEA on the integer pipe, which the
    // inspector's steps keep busiest (ncu: the math pipe's throttle and warps not selected, 34 % of the
    // stalls; issue slots 77 % busy). bench/wave_kernel.py, 8,192 sides of E. coli: 18.54 and 18.43 against
    // 19.50 and 19.17 ms (H200), the same results. The executor keeps its LEAs: with IMADs it was no faster.
    // Moving more work off the integer pipe did not pay again (RESULTS.md, thirty-eighth session: a 4 of its
    // own for each row access, letters on running pointers); two chains of cells a step did (calc, commit)
    const unsigned four = 4u + ((unsigned)band >> 30), wb4 = wbase * 4u;
    auto row_at = [four, wb4, wbase](int r, int w) -> unsigned& {
        if (EXEC) return *(unsigned*)((char*)dyn_smem + r + ((wbase + (unsigned)w) << 2));
        return *(unsigned*)((char*)dyn_smem + ((unsigned)w * four + ((unsigned)r + wb4)));
    };
    // word w of row r, from the warp's rows
    auto word = [rows](int r, int w) -> unsigned& { return *(unsigned*)((char*)rows + r + 4 * w); };
    const int neg = -(ydrop + 1402);
    const unsigned neg2 = pack16x2(neg, neg);
    const unsigned min2 = 0x80008000u;   // a max with it is no max: viaddmax(a, b, min2) adds
    for (int x = lane; x < 7 * rw; x += 32) rows[x] = neg2;
    __syncwarp();
    if (lane == 0) word(hB, 0) = pack16x2(0, neg);
    __syncwarp();
    const int goe = gap_open + gap_ext;
    const unsigned open2 = pack16x2(-goe, -goe), ext2 = pack16x2(-gap_ext, -gap_ext);
    const int rebase_at = min(REBASE16, ydrop);
    int lo1 = 0, hi1 = 1, lo2 = 0, hi2 = 0;
    int best = 0, bi = 0, bj = 0, base = 0;
    long long cells = 0, cab = 0;
    long long bsum = 0;   // the best before each anti-diagonal, summed (the kept rows' header)
    int status = 0, last = 0;
    Region reg, breg;   // the region explored, and at the best
    int d = 0;
    while (true) {
        ++d;
        if ((long long)d > (long long)qn + tn) break;
        if (EXEC) {
            if (d > dstop) break;
        } else if (d > dcap) {
            status = 2;
            break;
        }
        if (d > walls_until) {
            walls_on = walls_ahead(grid, wt0, ts, tn, wq0, qs, qn, d, lo1, hi1, lo2, hi2);
            walls_until = d + WALL_STRETCH - 1;
        }
        int lo, hi;
        antidiagonal_cells(d, lo1, hi1, lo2, hi2, tn, qn, lo, hi);
        if (lo >= hi) break;
        if (hi - lo > band - WARP_SLACK) { status = 1; break; }
        if (EXEC && lane == 0) { tlo[d] = lo; toff[d] = cells; }
        unsigned char* tbd = EXEC ? tbt + cells - lo : nullptr;   // cell c's byte at tbd[c]
        bsum += best;
        const int floor_rel = best - ydrop - base;   // ydrop's floor1 (best >= 0, ydrop < 2^29)
        const unsigned below2 = pack16x2(-floor_rel, -floor_rel);
        // the barrier's cells on this anti-diagonal: j - i = d - 2i for i in lo - 2 .. hi + 63
        const bool bar_here = (unsigned)(d - 2 * (lo - 2)) - (unsigned)bar <= (unsigned)(2 * (hi - lo + 66));
        int nlo = hi, nhi = lo;
        unsigned top2 = neg2;
        int dbest = neg, dbi = -1;   // EXEC: the thread's best live substitution cell (ydrop's rule)
        const int k0 = (lo - 1) >> 1, k1 = hi >> 1;   // pairs over cells lo - 1 .. hi
        // the anti-diagonal's pairs, in the build with or without the wall reads (uniform over the warp)
        auto sweep = [&](auto walls_flag) {
            constexpr bool WALLS = decltype(walls_flag)::value;
            // one pair's cells from its reads (calc), then written to the rows (commit): the rows of d - 2 and
            // d - 1 that calc reads are not the rows of d that commit writes, so two pairs' calcs go before
            // their commits, and the warp has two chains of cells to interleave
            struct PairOut { unsigned h, e, f, dead, bits, gap; };
            auto calc = [&](const PairReads& r, int k, PairOut& o) {
                // words k and k - 1 of every row (row_at)
                const int lw = k & mask, lm = (k - 1) & mask;
                const unsigned diag = shifted16x2(row_at(hA, lm), row_at(hA, lw));
                const unsigned up = row_at(hB, lw);
                const unsigned left = shifted16x2(row_at(hB, lm), up);
                const unsigned eup = row_at(eB, lw);
                const unsigned fleft = shifted16x2(row_at(fB, lm), row_at(fB, lw));
                // matrix entry (t, q) at byte t * 32 + q * 4, in two IMADs
                auto score = [&](int tc, int qc) {
                    if (EXEC) return mat[tc << 3 | qc];
                    return *(const int*)((const char*)mat + ((unsigned)tc * (8u * four) + (unsigned)qc * four));
                };
                const unsigned sc = pack16x2(score(r.t0, r.q0), score(r.t1, r.q1));
                const unsigned sub = __viaddmax_s16x2(diag, sc, neg2);
                unsigned e, f, h, bits = 0, gap = 0;
                if (EXEC) {
                    // ydrop's choices: E extends where eup + ext beats up + open, F likewise; src 0 where sub
                    // is the largest, else 1 where E is at least F, else 2
                    const unsigned eo = __viaddmax_s16x2(up, open2, min2), fo = __viaddmax_s16x2(left, open2, min2);
                    const unsigned em = __viaddmax_s16x2(eup, ext2, eo), fm = __viaddmax_s16x2(fleft, ext2, fo);
                    e = __vmaxs2(em, neg2);
                    f = __vmaxs2(fm, neg2);
                    const unsigned g = __vmaxs2(e, f);
                    h = __vmaxs2(sub, g);
                    gap = differ16x2(h, sub);
                    const unsigned fwin = differ16x2(g, e);
                    bits = (gap & ((fwin & 0x00020002u) | (~fwin & 0x00010001u))) | (differ16x2(em, eo) & 0x00040004u) |
                           (differ16x2(fm, fo) & 0x00080008u);
                } else {
                    e = __viaddmax_s16x2(up, open2, __viaddmax_s16x2(eup, ext2, neg2));
                    f = __viaddmax_s16x2(left, open2, __viaddmax_s16x2(fleft, ext2, neg2));
                    h = __vimax3_s16x2(sub, e, f);
                }
                const int c = 2 * k;
                unsigned dead = sign16x2(__viaddmax_s16x2(h, below2, neg2));
                dead |= (in_range(lo, hi, c) ? 0u : 0xffffu) | (in_range(lo, hi, c + 1) ? 0u : 0xffff0000u);
                if (bar_here) dead |= (d - 2 * c == bar ? 0xffffu : 0u) | (d - 2 * c - 2 == bar ? 0xffff0000u : 0u);
                if (WALLS) {
                    const int lq = wq0i + qs * c, j0 = d - c;
                    const bool more = __any_sync(FULL, (r.a0.w | r.a1.w) != 0);
                    if (walled16(r.a0, wall_row16(wall4, ts, tn, j0), lq, more)) dead |= 0xffffu;
                    if (walled16(r.a1, wall_row16(wall4, ts, tn, j0 - 1), lq + qs, more)) dead |= 0xffff0000u;
                }
                o = PairOut{h, e, f, dead, bits, gap};
            };
            auto commit = [&](const PairOut& o, int k) {
                const int lw = k & mask, c = 2 * k;
                const unsigned dead = o.dead, h = o.h;
                const unsigned hk = kill16x2(h, dead, neg2);
                row_at(hC, lw) = hk;
                row_at(eA, lw) = kill16x2(o.e, dead, neg2);
                row_at(fA, lw) = kill16x2(o.f, dead, neg2);
                if (!EXEC) top2 = __vmaxs2(top2, hk);
                if (EXEC) {
                    // the largest live cell whose H is its substitution's, the smaller i first (the pairs
                    // ascend): ydrop's best of the anti-diagonal, with no second sweep where the best rises
                    const unsigned subst = ~(o.gap | dead);
                    if ((subst & 0xffffu) && half16(h, 0) > dbest) { dbest = half16(h, 0); dbi = c; }
                    if ((subst >> 16) && half16(h, 1) > dbest) { dbest = half16(h, 1); dbi = c + 1; }
                    const unsigned bits = o.bits & ~dead;
                    if (in_range(lo, hi, c)) tbd[c] = (unsigned char)bits;
                    if (in_range(lo, hi, c + 1)) tbd[c + 1] = (unsigned char)(bits >> 16);
                }
                if (dead != 0xffffffffu) {
                    nlo = min(nlo, (dead & 0xffffu) ? c + 1 : c);
                    nhi = (dead >> 16) ? c + 1 : c + 2;
                }
            };
            // steps of 32 pairs, two at a time, each step's reads issued before the step before computes
            int k = k0 + lane;
            PairReads ra, rb;
            PairOut oa, ob;
            pair_reads(ra, d, k, ts16, qs16, ts, tn, wall4, WALLS);
            for (int kb = k0; kb <= k1; kb += 64, k += 64) {
                if (kb + 32 > k1) {
                    calc(ra, k, oa);
                    commit(oa, k);
                    break;
                }
                pair_reads(rb, d, k + 32, ts16, qs16, ts, tn, wall4, WALLS);
                calc(ra, k, oa);
                if (kb + 64 <= k1) pair_reads(ra, d, k + 64, ts16, qs16, ts, tn, wall4, WALLS);
                calc(rb, k + 32, ob);
                commit(oa, k);
                commit(ob, k + 32);
            }
        };
        if (walls_on) sweep(Flag<true>{});
        else sweep(Flag<false>{});
        nlo = __reduce_min_sync(FULL, nlo);
        nhi = __reduce_max_sync(FULL, nhi);
        const int top = EXEC ? 0 : __reduce_max_sync(FULL, max(half16(top2, 0), half16(top2, 1)));
        __syncwarp();
        cells += hi - lo;
        reg.grow(d, lo, hi);
        last = d;
        if (nlo >= nhi) break;
        if (EXEC || top >= best - base) {
            // ydrop's rule, cell by cell where the inspector's largest live H reaches the best: the
            // largest live substitution cell (h == sub), smallest i
            if (!EXEC)
                for (int x = lo + lane; x < hi; x += 32) {
                    const int hv = half16(word(hC, (x >> 1) & mask), x & 1);
                    if (hv < floor_rel) continue;
                    const int dv = half16(word(hA, ((x - 1) >> 1) & mask), (x - 1) & 1);
                    const int tc = letter16(ts16, d - x - 1), qc = letter16(qs16, x - 1);
                    if (hv == max(dv + mat[tc << 3 | qc], neg) && hv > dbest) { dbest = hv; dbi = x; }
                }
            const int m = __reduce_max_sync(FULL, dbest);
            const unsigned at = __reduce_min_sync(FULL, (dbi >= 0 && dbest == m) ? (unsigned)dbi : 0xffffffffu);
            // the records, as ydrop's
            if (trec && lane == 0) trec[d] = (at != 0xffffffffu && m > best - base) ? (int)at : -1;
            if (at != 0xffffffffu && m >= best - base) {
                best = m + base; bi = (int)at; bj = d - (int)at; cab = cells;
                breg = reg;
                if (keep && d == dstop) {
                    // the rows of d (complete after the warp's barrier) and d - 1, before any rebase
                    auto cell = [&](int row, int i) {
                        const int v = half16(word(row, (i >> 1) & mask), i & 1);
                        return v <= neg ? NEG : v + base;
                    };
                    dump_cells(keep, ex.dump_w, cell, hC, hB, eA, fA, lane, 32, d, nlo, nhi, lo1, hi1, best, bi, bj,
                               cells, 0, d, 0, bsum);
                }
            }
        }
        if (best - base > rebase_at) {
            __syncwarp();   // the cell-by-cell sweep's reads of the rows first
            // the rows the next anti-diagonal reads, less the best's climb (neg stays the floor)
            const int delta = best - base;
            base = best;
            for (int x = lane; x < rw; x += 32) {
                const int rs[4] = {hB, hC, eA, fA};
                for (int r = 0; r < 4; ++r) {
                    const unsigned v = word(rs[r], x);
                    word(rs[r], x) = pack16x2(max(half16(v, 0) - delta, neg), max(half16(v, 1) - delta, neg));
                }
            }
            __syncwarp();
        }
        next_antidiagonal(hA, hB, hC, eA, eB, fA, fB, lo1, hi1, lo2, hi2, nlo, nhi);
    }
    if (!EXEC && lane == 0) write_results(res, task, best, bi, bj, cells, cab, breg, reg, status, last, false, false);
}

// The warp kernels in 16-bit pairs (mode 0, nslot 4; ydrop16 the inspector, exec16 the executor, mode 1;
// the other parameters unused): ydrop's queue of tasks and shared memory, 7 rows of band words a warp;
// the substitution scores at least -(ydrop + 1); the wall grid's bits, block shift, columns and last
// query position (a side whose reach holds no wall reads none). quota: the tasks a warp takes before its
// block ends (0: until the queue is empty, a grid that fills the device once). With a quota the grid
// covers every task and its blocks end as they go, so that the blocks of a kernel on a stream of a
// higher priority (an executor, a walk back, a round) start as soon as one ends, rather than after the
// whole launch: a block that has started keeps its multiprocessor whatever the priorities.
#define PAIRS16_PARAMS YDROP_PARAMS, int* __restrict__ queue, const unsigned* __restrict__ grid_bits, \
    int grid_shift, int grid_cols, int grid_qmax, int quota
#define PAIRS16_ARGS YDROP_ARGS_IN, queue, grid_bits, grid_shift, grid_cols, grid_qmax, quota

template <bool EXEC>
__device__ __forceinline__ void pairs16_kernel(PAIRS16_PARAMS)
{
    const WallGrid grid{grid_bits, grid_shift, grid_cols, grid_qmax};
    const Exec16 ex{dstop_arr, tb_base, ad_base, tb, tb_lo, tb_off, tb_rec, slots, dump, dump_w};
    int* mat = load_matrix(matrix, msize);
    if (threadIdx.x < MAT_INTS) mat[threadIdx.x] = max(mat[threadIdx.x], -(ydrop + 1));
    __syncthreads();
    unsigned* rows = (unsigned*)(dyn_smem + MAT_INTS) + (size_t)(threadIdx.x >> 5) * 7 * (band >> 1);
    for (int taken = 0; quota <= 0 || taken < quota; ++taken) {
        int task = 0;
        if ((threadIdx.x & 31) == 0) task = atomicAdd(queue, 1);
        task = __shfl_sync(FULL, task, 0);
        if (task >= ntasks) return;
        pairs16_task<EXEC>(t, q, tasks, task, mat, gap_open, gap_ext, ydrop, walls, band, dcap, res, rows, grid, ex);
        __syncwarp();
    }
}

extern "C" __global__ void ydrop16(PAIRS16_PARAMS) { pairs16_kernel<false>(PAIRS16_ARGS); }

extern "C" __global__ void exec16(PAIRS16_PARAMS) { pairs16_kernel<true>(PAIRS16_ARGS); }

// Marks the wall grid's blocks (WallGrid) that hold a wall of rows [row0, row1) of 4 slots, one thread
// a row, after the rows' upload: a block is set once, by whichever thread finds it clear.
extern "C" __global__ void wall_grid_mark(const int* __restrict__ walls, long long row0, long long row1,
                                          int shift, int cols, int qmax, unsigned* __restrict__ bits)
{
    const long long r = row0 + blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (r >= row1) return;
    const int4 a = ((const int4*)walls)[2 * r], b = ((const int4*)walls)[2 * r + 1];
    const int lo[4] = {a.x, a.z, b.x, b.z}, hi[4] = {a.y, a.w, b.y, b.w};
    const long long tb = r >> shift;
    for (int k = 0; k < 4 && hi[k] != 0; ++k) {
        const int q0 = max(lo[k], 0) >> shift, q1 = min(hi[k] - 1, qmax) >> shift;
        for (int x = q0; x <= q1; ++x) {
            const long long bit = tb * cols + x;
            const unsigned m = 1u << (bit & 31);
            if (!(bits[bit >> 5] & m)) atomicOr(bits + (bit >> 5), m);
        }
    }
}

// One block per task (blockDim.x a multiple of 32, at most 1024; MAT_INTS + 7 * band ints of dynamic
// shared memory). The wall grid as the warp kernels' (grid_bits null: not kept, walls assumed): a task
// whose reach, its anti-diagonals up to its stop or cap, holds no wall runs without wall reads.
#define WIDE_PARAMS YDROP_PARAMS, const unsigned* __restrict__ grid_bits, int grid_shift, int grid_cols, int grid_qmax
#define WIDE_ARGS YDROP_ARGS_IN, grid_bits, grid_shift, grid_cols, grid_qmax

template <bool CHUNK>
__device__ __forceinline__ void wide_block(WIDE_PARAMS)
{
    __shared__ Red red[2 * 32];
    int* mat = load_matrix(matrix, msize);
    int* rows = dyn_smem + MAT_INTS;
    const int task = blockIdx.x;
    if (task >= ntasks) return;
    bool near = true;
    if (grid_bits != nullptr && nslot == 4) {
        const long long* tp = tasks + 9LL * task;
        long long reach = (mode == 1 || CHUNK) ? dstop_arr[task] : (1LL << 62);
        if (mode != 1) reach = min(reach, (long long)dcap);
        const WallGrid grid{grid_bits, grid_shift, grid_cols, grid_qmax};
        near = walls_in_reach(grid, tp[8], (int)tp[1], (int)tp[2], tp[7], (int)tp[4], (int)tp[5],
                              (int)min(reach, (long long)(1 << 30)));
    }
    run_task<true, CHUNK>(YDROP_ARGS, rows, red, near);
}

extern "C" __global__ void ydrop_wide(WIDE_PARAMS) { wide_block<false>(WIDE_ARGS); }

// ydrop_wide for relay chunks (mode 3; dump_at and dump in use).
extern "C" __global__ void ydrop_chunk(WIDE_PARAMS) { wide_block<true>(WIDE_ARGS); }

// After a mode 2 launch, gridDim.y blocks per task: copy the task's traceback bytes up to its
// best anti-diagonal (R_CELLS_AT_BEST of them) to out_tb, and its anti-diagonal rows 0..best
// (first i, offset) to out_ad, packed in task order: the tasks before it that hold a traceback
// (R_TRACED and a best cell past the origin) come first, each from a multiple of 16 bytes (the
// rooms in tb start at multiples of 16 too, so the bytes move as 16-byte words). The host
// computes the same positions from res (_packed_bases in gpu/gapped.py). Where tb_rec is given, each
// row's record (ydrop_task's) goes to out_rec beside it (row 0: -1).
extern "C" __global__ void ydrop_pack(const long long* __restrict__ res, int ntasks,
                                      const long long* __restrict__ tb_base, const long long* __restrict__ ad_base,
                                      const unsigned char* __restrict__ tb, const int* __restrict__ tb_lo,
                                      const long long* __restrict__ tb_off, unsigned char* __restrict__ out_tb,
                                      long long* __restrict__ out_ad, const int* __restrict__ tb_rec,
                                      int* __restrict__ out_rec)
{
    const int task = blockIdx.x;
    if (task >= ntasks) return;
    long long pos = 0, apos = 0;
    for (int x = 0; x < task; ++x) {
        const long long* r = res + (long long)R_N * x;
        const long long ds = r[R_BI] + r[R_BJ];
        if (r[R_TRACED] && ds > 0) { pos += (r[R_CELLS_AT_BEST] + 15) & ~15LL; apos += ds + 1; }
    }
    const long long* r = res + (long long)R_N * task;
    const long long ds = r[R_BI] + r[R_BJ];
    if (!r[R_TRACED] || ds <= 0) return;
    const long long words = (r[R_CELLS_AT_BEST] + 15) >> 4;
    const uint4* src = (const uint4*)(tb + tb_base[task]);
    uint4* dst = (uint4*)(out_tb + pos);
    const long long step = (long long)blockDim.x * gridDim.y;
    const long long first = (long long)blockIdx.y * blockDim.x + threadIdx.x;
    for (long long k = first; k < words; k += step) dst[k] = src[k];
    for (long long k = first; k <= ds; k += step) {
        out_ad[2 * (apos + k)] = k ? tb_lo[ad_base[task] + k] : 0;
        out_ad[2 * (apos + k) + 1] = k ? tb_off[ad_base[task] + k] : 0;
        if (tb_rec) out_rec[apos + k] = k ? tb_rec[ad_base[task] + k] : -1;
    }
}

// After a mode 1 launch, one thread per task: the columns of the path from the task's best cell
// (bi, bj) back to the origin, read from its traceback bytes (tb from tb_base[task], anti-diagonal
// d's first cell tb_lo[ad_base[task] + d] and offset tb_off[...]): the walk of cpu/gapped's
// traceback_steps. They go to out[out_base[task] .. out_base[task] + bi + bj), origin first and
// ending at the slot's end (a path has at most bi + bj columns); lens[task] is their count. Column
// codes as cpu/gapped: 0 equal letters, 1 mismatch, 2 gap in the target (I), 3 gap in the query (D).
//
// Routes (where tb_rec, the executor's records, is given): the walk marks the path in the bytes (bit
// 16 << state: bits the walk does not read) and notes the records off it (a record the path does not
// stand on in state 0), then walks back each of those cells not on a route so far (bit 128: a route's
// cell in state 0), from the last anti-diagonal down, until it meets the path in the same state. Each
// route goes to rout from rout_base[task]: a header of four little-endian int32 (the meeting cell's
// anti-diagonal, i and state, the count) and its columns from the record back (0 a substitution, 2 I,
// 3 D); rlens[task] is the bytes written, -1 past the room (rout_base[task] .. rout_base[task + 1], less 4
// bytes a noted record: gpu/runner.route_room).
// The twin is gpu/kernel_twin.side_routes; the walk's proof uses them (gpu/path_holds).
__device__ __forceinline__ void put_int(unsigned char* p, long long v)
{
    for (int k = 0; k < 4; ++k) p[k] = (unsigned char)((v >> (8 * k)) & 0xff);
}

__device__ __forceinline__ long long get_int(const unsigned char* p)
{
    return (long long)(int)((unsigned)p[0] | ((unsigned)p[1] << 8) | ((unsigned)p[2] << 16) | ((unsigned)p[3] << 24));
}

extern "C" __global__ void ydrop_trace(int ntasks, const long long* __restrict__ tasks,
                                       const unsigned char* __restrict__ t, const unsigned char* __restrict__ q,
                                       unsigned char* __restrict__ tb, const int* __restrict__ tb_lo,
                                       const long long* __restrict__ tb_off, const long long* __restrict__ tb_base,
                                       const long long* __restrict__ ad_base, const long long* __restrict__ bi,
                                       const long long* __restrict__ bj, const long long* __restrict__ out_base,
                                       unsigned char* __restrict__ out, long long* __restrict__ lens,
                                       const int* __restrict__ tb_rec, const long long* __restrict__ rout_base,
                                       unsigned char* __restrict__ rout, long long* __restrict__ rlens)
{
    const int task = blockIdx.x * blockDim.x + threadIdx.x;
    if (task >= ntasks) return;
    const long long* tk = tasks + 9LL * task;
    const long long tstep = tk[1], qstep = tk[4];
    const long long tbase = tk[0] - tstep, qbase = tk[3] - qstep;
    unsigned char* tbt = tb + tb_base[task];
    const bool routes = tb_rec != nullptr;
    const int* lo = tb_lo + ad_base[task];
    const long long* off = tb_off + ad_base[task];
    long long i = bi[task], j = bj[task];
    unsigned char* end = out + out_base[task] + i + j;   // columns go backwards from here
    long long n = 0;
    int state = 0;
    // a step goes back one anti-diagonal (a gap) or two (a substitution): the byte bases (offset less
    // first cell) of the next four are read ahead, and the cell's letters beside its byte, so that a
    // step waits on one read, its byte, where it waited on the table's and then the byte's (an
    // anti-diagonal of 0 reads entry 0, unused: the walk stops there)
    auto base_of = [&](long long dd) { const long long x = dd > 0 ? dd : 0; return off[x] - lo[x]; };
    long long a0 = base_of(i + j), a1 = base_of(i + j - 1), a2 = base_of(i + j - 2);
    // routes: the records off the path, their anti-diagonals as int32 from the room's end down (read
    // beside each step's byte: the walk does not wait on them), then each walked back
    const long long room = routes ? rout_base[task + 1] - rout_base[task] : 0;
    const int* rec = routes ? tb_rec + ad_base[task] : nullptr;
    unsigned char* ro = routes ? rout + rout_base[task] : nullptr;
    long long nlist = 0;
    auto off_path = [&](long long d) { if (4 * (nlist + 1) <= room) put_int(ro + room - 4 * (nlist + 1), d); ++nlist; };
    while (i > 0 || j > 0) {
        const long long dd = i + j;
        const unsigned char byte = tbt[a0 + i];
        const int r0 = routes ? rec[dd] : -1, r1 = routes && dd > 1 ? rec[dd - 1] : -1;
        if (r0 >= 0 && (state != 0 || r0 != i)) off_path(dd);
        const unsigned char tc = t[tbase + tstep * (j > 0 ? j : 1)], qc = q[qbase + qstep * (i > 0 ? i : 1)];
        const long long a3 = base_of(dd - 3), a4 = base_of(dd - 4);
        if (state == 0 && (byte & 3) == 0) {
            if (routes) {
                tbt[a0 + i] = byte | 16;
                if (r1 >= 0) off_path(dd - 1);   // the anti-diagonal a substitution steps over
            }
            *(end - 1 - n) = (tc == qc && tc < 4) ? 0 : 1;
            ++n; --i; --j;
            a0 = a2; a1 = a3; a2 = a4;
            continue;
        }
        int mark = 0;
        if (state == 0) { state = byte & 3; mark = 16; }
        if (routes) tbt[a0 + i] = byte | mark | (16 << state);
        if (state == 1) {
            *(end - 1 - n) = 3;
            ++n; --j;
            if (!(byte & 4)) state = 0;
        } else {
            *(end - 1 - n) = 2;
            ++n; --i;
            if (!(byte & 8)) state = 0;
        }
        a0 = a1; a1 = a2; a2 = a3;
    }
    lens[task] = n;
    if (!routes) return;
    long long used = 4 * nlist > room ? -1 : 0;
    const long long limit = room - 4 * nlist;
    for (long long k = 0; k < nlist && used >= 0; ++k) {
        const long long d = get_int(ro + room - 4 * (k + 1));
        const int r = rec[d];
        if (tbt[base_of(d) + r] & 128) continue;
        long long ri = r, rj = d - r, cnt = 0;
        int st = 0;
        const long long head = used;
        used += 16;
        while (ri + rj > 0) {
            const long long x = base_of(ri + rj) + ri;
            const unsigned char byte = tbt[x];
            if (byte & (16 << st)) break;
            if (used + cnt >= limit) { used = -1; break; }
            if (st == 0) {
                tbt[x] = byte | 128;
                const int src = byte & 3;
                if (src == 0) { ro[used + cnt++] = 0; --ri; --rj; continue; }
                st = src;
                if (byte & (16 << st)) break;
            }
            if (st == 1) { ro[used + cnt++] = 3; --rj; st = (byte & 4) ? 1 : 0; }
            else { ro[used + cnt++] = 2; --ri; st = (byte & 8) ? 2 : 0; }
        }
        if (used < 0) break;
        put_int(ro + head, ri + rj);
        put_int(ro + head + 4, ri);
        put_int(ro + head + 8, st);
        put_int(ro + head + 12, cnt);
        used += cnt;
    }
    rlens[task] = used;
}

// The traceback of a relayed side over its chunks' bytes left on the device (gpu/runner.relay_trace; the
// host's twin is cpu/relay.trace_split). The side's anti-diagonals D0..D1 sit in one table indexed d - D0:
// the first byte off, first cell lo and cells wid of each. The path enters at cell (i, j), i + j = D1, in
// state st. The anti-diagonals are cut into stretches of S.
//
// relay_walk_ahead: thread s walks stretch s (anti-diagonals D0 + s S to D0 + (s + 1) S - 1) as the
//   traceback does, from a guess: the entry for a stretch within W anti-diagonals of it, else the middle
//   cell of the anti-diagonal W above the stretch, in state 0 (a walk that starts off the path soon runs into
//   it: along a long alignment, the cells beside the path trace back to it). Within its stretch it marks,
//   per anti-diagonal, where it stood (4 i + state; -1 where it stepped over) and the columns it had written
//   before, writes its columns to gops from s S, and where it leaves the stretch (exits: i, j, state,
//   columns, ok). A walk that meets a cell the chunks did not compute gives up (ok 0).
// relay_walk_join: thread 0 walks the path from the entry. Where it stands where a walk ahead stood, in the
//   same state, the rest of that stretch is that walk's (a step depends on the cell and state only): it
//   records those columns for the copy and goes on from that walk's exit. Elsewhere it steps itself. Then the
//   block copies the recorded columns. The columns are the traceback's, last first (result: their count and
//   the cell and state where the walk left anti-diagonal D0, for the pieces before).
__device__ __forceinline__ int trace_col(unsigned char byte, long long& i, long long& j, int& st,
                                         const unsigned char* __restrict__ t, long long tbase, long long tstep,
                                         const unsigned char* __restrict__ q, long long qbase, long long qstep)
{
    if (st == 0) {
        const int src = byte & 3;
        if (src == 0) {
            const unsigned char tc = t[tbase + tstep * j], qc = q[qbase + qstep * i];
            --i; --j;
            return (tc == qc && tc < 4) ? 0 : 1;
        }
        st = src;
    }
    if (st == 1) { --j; st = (byte & 4) ? 1 : 0; return 3; }
    --i; st = (byte & 8) ? 2 : 0; return 2;
}

extern "C" __global__ void relay_walk_ahead(long long D0, long long D1, int S, int W, int nst,
                                            const unsigned char* __restrict__ tb, const long long* __restrict__ off,
                                            const int* __restrict__ lo, const int* __restrict__ wid,
                                            const unsigned char* __restrict__ t, const unsigned char* __restrict__ q,
                                            long long tbase, long long tstep, long long qbase, long long qstep,
                                            long long i_in, long long j_in, int st_in, long long* __restrict__ mark,
                                            int* __restrict__ mark_n, unsigned char* __restrict__ gops,
                                            long long* __restrict__ exits)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nst) return;
    const long long a = D0 + (long long)s * S;
    const long long b = min(a + S - 1, D1);
    for (long long d = a; d <= b; ++d) mark[d - D0] = -1;
    long long i = i_in, j = j_in;
    int st = st_in;
    if (b + W < D1) {
        const long long x = b + W - D0;
        i = lo[x] + wid[x] / 2;
        j = b + W - i;
        st = 0;
    }
    int n = 0, ok = 1;
    unsigned char* g = gops + (long long)s * S;
    while (i > 0 || j > 0) {
        const long long d = i + j;
        if (d < a) break;
        const long long x = d - D0;
        const long long c = i - lo[x];
        if (i < 0 || j < 0 || c < 0 || c >= wid[x]) { ok = 0; break; }
        const bool own = d <= b;
        if (own) { mark[x] = 4 * i + st; mark_n[x] = n; }
        const int col = trace_col(tb[off[x] + c], i, j, st, t, tbase, tstep, q, qbase, qstep);
        if (own) g[n++] = (unsigned char)col;
    }
    long long* e = exits + 5LL * s;
    e[0] = i; e[1] = j; e[2] = st; e[3] = n; e[4] = ok;
}

extern "C" __global__ void relay_walk_join(long long D0, int S, const unsigned char* __restrict__ tb,
                                           const long long* __restrict__ off, const int* __restrict__ lo,
                                           const unsigned char* __restrict__ t, const unsigned char* __restrict__ q,
                                           long long tbase, long long tstep, long long qbase, long long qstep,
                                           long long i_in, long long j_in, int st_in,
                                           const long long* __restrict__ mark, const int* __restrict__ mark_n,
                                           const unsigned char* __restrict__ gops,
                                           const long long* __restrict__ exits, long long* __restrict__ segs,
                                           unsigned char* __restrict__ out, long long* __restrict__ result)
{
    __shared__ long long nseg_all;
    if (threadIdx.x == 0) {
        long long i = i_in, j = j_in, n = 0, nseg = 0, steps = 0;
        int st = st_in;
        while ((i > 0 || j > 0) && i + j >= D0) {
            const long long x = i + j - D0;
            const long long* e = exits + 5LL * (x / S);
            if (mark[x] == 4 * i + st && e[4]) {
                const long long m = e[3] - mark_n[x];
                segs[3 * nseg] = (x / S) * S + mark_n[x];
                segs[3 * nseg + 1] = n;
                segs[3 * nseg + 2] = m;
                ++nseg;
                n += m;
                i = e[0]; j = e[1]; st = (int)e[2];
                continue;
            }
            out[n++] = (unsigned char)trace_col(tb[off[x] + i - lo[x]], i, j, st, t, tbase, tstep, q, qbase, qstep);
            ++steps;
        }
        result[0] = n; result[1] = i; result[2] = j; result[3] = st; result[4] = steps; result[5] = nseg;
        nseg_all = nseg;
    }
    __syncthreads();
    for (long long k = 0; k < nseg_all; ++k) {
        const long long from = segs[3 * k], at = segs[3 * k + 1], m = segs[3 * k + 2];
        for (long long b = threadIdx.x; b < m; b += blockDim.x) out[at + b] = gops[from + b];
    }
}

// The table relay_walk_ahead reads (off, lo, wid; rows indexed by side anti-diagonal less the table's first)
// over the chunks of one relay launch, and their bytes packed: chunk k (blockIdx.y) has nrow own
// anti-diagonals from table row row0, their rows src.. of tb_off and tb_lo, its byte 0 at byte at of the
// buffer the traceback reads, its first cell i0 and its last anti-diagonal's end at byte end. Its nb bytes
// from byte from of src (the launch's rooms) go to byte to of dst (packed end to end, where nb > 0: one
// launch instead of a copy per chunk, each of which waited for the device on its own).
extern "C" __global__ void relay_tables(const long long* __restrict__ info, const long long* __restrict__ tb_off,
                                        const int* __restrict__ tb_lo, long long* __restrict__ off,
                                        int* __restrict__ lo, int* __restrict__ wid,
                                        const unsigned char* __restrict__ src, unsigned char* __restrict__ dst)
{
    const long long* c = info + 9LL * blockIdx.y;
    const long long row0 = c[0], nrow = c[1], srow = c[2], i0 = c[3], at = c[4], end = c[5];
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < nrow; r += stride) {
        const long long o = tb_off[srow + r];
        const long long next = r + 1 < nrow ? tb_off[srow + r + 1] : end;
        off[row0 + r] = o + at;
        lo[row0 + r] = (int)(tb_lo[srow + r] + i0);
        wid[row0 + r] = (int)(next - o);
    }
    const unsigned char* from = src + c[6];
    unsigned char* to = dst + c[7];
    const long long nb = c[8];
    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < nb; b += stride) to[b] = from[b];
}

// The rows at the best kept in arena slots (dump_state's form, rows of w + 2 ints), packed for one
// copy to the host, one block per slot: slot slots[k]'s header and the first n ints of each of its
// four rows (n its header's width, [11]) go to out from at[k] (-1: the slot holds none). Most of a
// slot is unused (rows of 512 against live widths of a few hundred). gpu/gapped._pack_dumps packs
// the same on the host.
extern "C" __global__ void rows_pack(const int* __restrict__ arena, int w, const long long* __restrict__ slots,
                                     int nslots, const long long* __restrict__ at, int* __restrict__ out)
{
    const int k = blockIdx.x;
    if (k >= nslots || at[k] < 0) return;
    const int* src = arena + slots[k] * (DUMP_HEAD + 4LL * (w + 2));
    int* dst = out + at[k];
    const int n = src[11];
    for (int x = threadIdx.x; x < DUMP_HEAD; x += blockDim.x) dst[x] = src[x];
    for (int r = 0; r < 4; ++r)
        for (int x = threadIdx.x; x < n; x += blockDim.x) dst[DUMP_HEAD + r * n + x] = src[DUMP_HEAD + r * (w + 2) + x];
}

// The bytes written at the front of each room of src (room k from src_at[k], at[k + 1] - at[k] of them)
// packed one after another into dst from at[k]: ydrop_trace's routes, where a room holds far more than its
// side writes (gpu/runner._packed_rooms). One block a room.
extern "C" __global__ void pack_rooms(const unsigned char* __restrict__ src, const long long* __restrict__ src_at,
                                      const long long* __restrict__ at, int n, unsigned char* __restrict__ dst)
{
    const int k = blockIdx.x;
    if (k >= n) return;
    const unsigned char* from = src + src_at[k];
    unsigned char* to = dst + at[k];
    const long long len = at[k + 1] - at[k];
    for (long long x = threadIdx.x; x < len; x += blockDim.x) to[x] = from[x];
}
