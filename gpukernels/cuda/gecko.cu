// GECKO preset kernels: twins of cpu/gecko.py (k-mer keys, hit expansion,
// per-diagonal fragments with GECKO's +1/-1 x-drop-to-zero extension).

extern "C" {

typedef unsigned long long u64;

// keys[p], valid[p]: the k-mer starting at p (2 bits per letter, first highest).
__global__ void kmer_keys(const unsigned char* codes, long long n, int k, u64* keys, unsigned char* valid)
{
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    u64 key = 0;
    unsigned char ok = p + k <= n;
    for (int s = 0; ok && s < k; ++s) {
        unsigned char c = codes[p + s];
        if (c > 3) ok = 0; else key = (key << 2) | c;
    }
    keys[p] = ok ? key : 0ULL;
    valid[p] = ok;
}

__global__ void fill_hits(const long long* q_pos, const long long* first, const long long* counts,
                          const long long* starts, const long long* sorted_t, long long n,
                          long long* hit_q, long long* hit_t)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long w = starts[i];
    for (long long e = first[i]; e < first[i] + counts[i]; ++e) {
        hit_q[w] = q_pos[i];
        hit_t[w] = sorted_t[e];
        ++w;
    }
}

__device__ void extend(const unsigned char* t, long long tn, const unsigned char* q, long long qn,
                       long long qq, long long tt, int k, long long* out0, long long* out1, long long* outs)
{
    long long diag = tt - qq;
    long long limit = qn < tn - diag ? qn : tn - diag;
    long long score = k, best = k, end = qq + k, s = qq + k;
    while (s < limit) {
        unsigned char a = t[s + diag], b = q[s];
        if (a == 5 || b == 5) break;
        score += (a == b && a < 4) ? 1 : -1;
        ++s;
        if (score > best) { best = score; end = s; }
        if (score < 0) break;
    }
    long long lower = diag >= 0 ? 0 : -diag;
    score = best;
    long long start = qq;
    s = qq - 1;
    while (s >= lower) {
        unsigned char a = t[s + diag], b = q[s];
        if (a == 5 || b == 5) break;
        score += (a == b && a < 4) ? 1 : -1;
        if (score > best) { best = score; start = s; }
        --s;
        if (score < 0) break;
    }
    *out0 = start; *out1 = end; *outs = best;
}

// One thread per diagonal g: hits seg[g]..seg[g+1] in query order.
__global__ void fragments(const unsigned char* t, long long tn, const unsigned char* q, long long qn,
                          const long long* hit_q, const long long* hit_t, const long long* seg,
                          long long nseg, int k, long long* q0, long long* q1, long long* score)
{
    long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= nseg) return;
    long long kept = -(1LL << 62), covered = -1;
    for (long long h = seg[g]; h < seg[g + 1]; ++h) {
        long long qq = hit_q[h];
        q0[h] = -1; q1[h] = 0; score[h] = 0;
        if (qq < kept + 2LL * k) continue;
        kept = qq;
        if (qq < covered) continue;
        long long a, b, sc;
        extend(t, tn, q, qn, qq, hit_t[h], k, &a, &b, &sc);
        q0[h] = a; q1[h] = b; score[h] = sc;
        if (b > covered) covered = b;
    }
}

}
