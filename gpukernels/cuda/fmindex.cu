// FM-index search kernels: twins of cpu/fmindex.py (count, then fill hits).
// Index layout (see cpu/fmindex.py): blocks[b*8 + 0..7] per 128 BWT rows:
// words 0-1 counts of A..T (uint32 pairs), words 2-5 2-bit symbols, words 6-7
// "not A-T" bits; occ5 per block; C[0..6]; sampled-SA bit vector + ranks.

extern "C" {

typedef unsigned long long u64;

__device__ __forceinline__ u64 low_bits(int k)
{
    return k >= 64 ? ~0ULL : ((1ULL << k) - 1ULL);
}

__device__ __forceinline__ long long occ_at(const u64* blocks, int c, long long i)
{
    long long b = i >> 7;
    int r = (int)(i & 127);
    const u64* blk = blocks + b * 8;
    u64 pair = blk[(c - 1) >> 1];
    long long cnt = (long long)((pair >> (32 * ((c - 1) & 1))) & 0xFFFFFFFFULL);
    u64 pat = 0x5555555555555555ULL * (u64)(c - 1);
    for (int w = 0; w < 4; ++w) {
        int k = r - 32 * w;
        if (k <= 0) break;
        u64 x = blk[2 + w] ^ pat;
        u64 match = ~(x | (x >> 1)) & 0x5555555555555555ULL;
        if (k < 32) match &= low_bits(2 * k);
        cnt += __popcll(match);
    }
    if (c == 1) {
        cnt -= __popcll(blk[6] & low_bits(r));
        if (r > 64) cnt -= __popcll(blk[7] & low_bits(r - 64));
    }
    return cnt;
}

__device__ __forceinline__ int symbol_at(const u64* blocks, long long dollar, long long j)
{
    long long b = j >> 7;
    int r = (int)(j & 127);
    if ((blocks[b * 8 + 6 + (r >> 6)] >> (r & 63)) & 1ULL) return j == dollar ? 0 : 5;
    return (int)((blocks[b * 8 + 2 + (r >> 5)] >> (2 * (r & 31))) & 3ULL) + 1;
}

__device__ __forceinline__ long long occ_other(const u64* blocks, const unsigned int* occ5, long long dollar,
                                               long long i)
{
    long long b = i >> 7;
    int r = (int)(i & 127);
    long long cnt = (long long)occ5[b] + __popcll(blocks[b * 8 + 6] & low_bits(r));
    if (r > 64) cnt += __popcll(blocks[b * 8 + 7] & low_bits(r - 64));
    if (b * 128 <= dollar && dollar < i) cnt -= 1;
    return cnt;
}

__device__ long long locate_row(const u64* blocks, const unsigned int* occ5, long long dollar,
                                const long long* C, const u64* mark_words, const long long* mark_rank,
                                const long long* ssa, long long j)
{
    long long steps = 0;
    while (true) {
        u64 w = mark_words[j >> 6];
        u64 bit = 1ULL << (j & 63);
        if (w & bit) return ssa[mark_rank[j >> 6] + __popcll(w & (bit - 1ULL))] + steps;
        int c = symbol_at(blocks, dollar, j);
        if (c == 5) j = C[5] + occ_other(blocks, occ5, dollar, j);
        else j = C[c] + occ_at(blocks, c, j);
        ++steps;
    }
}

#define MAX_L 64

// One thread per query word [q_lo, q_hi). Depth-first backtracking search as
// cpu/fmindex.backward_search (letters A..T at each depth, from the word's
// end). fill == 0: counts[k] = rows (0 when invalid or over cap).
// fill == 1: words with counts[k] > 0 write their hits at starts[k].
__global__ void fm_search(const u64* blocks, const unsigned int* occ5, long long dollar, const long long* C,
                          long long n, const u64* mark_words, const long long* mark_rank,
                          const long long* ssa, const unsigned char* q_codes, long long q_len,
                          long long q_lo, long long q_hi, int L, int m, long long cap,
                          long long* counts, const long long* starts, long long* hit_q, long long* hit_t,
                          int fill)
{
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long qpos = q_lo + k;
    if (qpos >= q_hi) return;
    if (fill && counts[k] == 0) return;
    if (!fill) counts[k] = 0;
    if (qpos + L > q_len) return;
    unsigned char pattern[MAX_L];
    for (int s = 0; s < L; ++s) {
        unsigned char c = q_codes[qpos + s];
        if (c > 3) return;
        pattern[s] = c + 1;
    }
    long long lo[MAX_L + 1], hi[MAX_L + 1];
    unsigned char mis[MAX_L + 1], nxt[MAX_L + 1];
    int d = 0;
    lo[0] = 0; hi[0] = n; mis[0] = 0; nxt[0] = 1;
    long long rows = 0;
    long long w = fill ? starts[k] : 0;
    while (d >= 0) {
        if (d == L) {
            rows += hi[d] - lo[d];
            if (!fill && rows > cap) return;          // counts[k] stays 0
            if (fill) {
                for (long long j = lo[d]; j < hi[d]; ++j) {
                    hit_q[w] = qpos;
                    hit_t[w] = locate_row(blocks, occ5, dollar, C, mark_words, mark_rank, ssa, j);
                    ++w;
                }
            }
            --d;
            continue;
        }
        int c = nxt[d];
        if (c > 4) { --d; continue; }
        nxt[d] = c + 1;
        int mm = mis[d] + (c != pattern[L - 1 - d] ? 1 : 0);
        if (mm > m) continue;
        long long a = C[c] + occ_at(blocks, c, lo[d]);
        long long b = C[c] + occ_at(blocks, c, hi[d]);
        if (a >= b) continue;
        ++d;
        lo[d] = a; hi[d] = b; mis[d] = (unsigned char)mm; nxt[d] = 1;
    }
    if (!fill) counts[k] = rows;
}

}
