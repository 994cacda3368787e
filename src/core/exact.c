// Exact geometric predicates (Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric
// Predicates", 1997): a floating-point filter with a proven error bound answers almost every call; when it cannot
// decide, error-free transformations (two-sum, fma two-product) give the exact answer if no intermediate value
// underflows or overflows; otherwise the doubles' mantissas are multiplied and added as big integers.
#include "core/exact.h"

#include "lidarsim/base.h"
#include "lidarsim/geometry.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Filter helpers and short expansions (the error-free transformations themselves are inline in exact.h)

// True when x is zero or its magnitude is in [2^-480, 2^500]: products of two such numbers and their fma error
// terms are exact doubles (no underflow below 2^-1074, no overflow), and sums of a few of them do not overflow.
static inline bool IsSafeFactor(double x)
{
    double m = fabs(x);
    return m == 0.0 || (m >= 0x1p-480 && m <= 0x1p500);
}

// Sign of the exact sum of n doubles (n <= 8) by Shewchuk's Grow-Expansion: the result is a nonoverlapping
// expansion in increasing magnitude, so its largest nonzero component carries the sign of the sum.
static int SignOfExpansion(const double* terms, int n)
{
    double h[8];
    int m = 0;
    for (int k = 0; k < n; ++k)
    {
        double q = terms[k];
        for (int i = 0; i < m; ++i)
        {
            lsTwoSum(q, h[i], &q, &h[i]);
        }
        h[m++] = q;
    }
    for (int i = m - 1; i >= 0; --i)
    {
        if (h[i] != 0.0)
        {
            return h[i] > 0.0 ? 1 : -1;
        }
    }
    return 0;
}

// Adds q to the nonoverlapping expansion h[0..*m) (increasing magnitude) exactly (Shewchuk's Grow-Expansion).
static inline void GrowExpansion(double* h, int* m, double q)
{
    for (int i = 0; i < *m; ++i)
    {
        lsTwoSum(q, h[i], &q, &h[i]);
    }
    h[(*m)++] = q;
}

bool lsSumOfProductsExact(const double* x, const double* y, int n, double* sum)
{
    LS_ASSERT(n >= 1 && n <= LS_EXACT_SUM_MAX_PRODUCTS);
    double h[2 * LS_EXACT_SUM_MAX_PRODUCTS];
    int m = 0;
    for (int k = 0; k < n; ++k)
    {
        if (!IsSafeFactor(x[k]) || !IsSafeFactor(y[k]))
        {
            return false;
        }
        double p = x[k] * y[k];
        GrowExpansion(h, &m, lsTwoProductTail(x[k], y[k], p));
        GrowExpansion(h, &m, p);
    }
    // The components do not overlap and grow in magnitude: added from the smallest, each sum is exact to within the
    // next component's last bit, so the total is within about an ulp of the exact value.
    double total = 0.0;
    for (int i = 0; i < m; ++i)
    {
        total += h[i];
    }
    *sum = total;
    return true;
}

double lsCrossExactDD(lsDD ux, lsDD uy, lsDD vx, lsDD vy)
{
    const double x[8] = {ux.hi, ux.hi, ux.lo, ux.lo, -uy.hi, -uy.hi, -uy.lo, -uy.lo};
    const double y[8] = {vy.hi, vy.lo, vy.hi, vy.lo, vx.hi, vx.lo, vx.hi, vx.lo};
    double sum;
    return lsSumOfProductsExact(x, y, 8, &sum) ? sum : lsCrossDD(ux, uy, vx, vy);
}

int lsSignOfSum4(double a, double b, double c, double d)
{
    double terms[4] = {a, b, c, d};
    return SignOfExpansion(terms, 4);
}

// ---------------------------------------------------------------------------------------------------------------------
// Big-integer fallback: every finite double is m 2^e with an integer m < 2^53 and e in [-1074, 971], so a product
// of k doubles is an integer of at most 53 k bits times 2^E. The terms are added into two magnitudes (positive and
// negative parts) of 32-bit limbs aligned at the smallest exponent, then compared.

enum
{
    // Exponent span of 6-factor products, at most 6 (971 + 1074) = 12270 bits (12582 leaves slack), plus a
    // 318-bit mantissa and carries.
    ls_limbCount = (12582 + 318 + 64) / 32 + 4,
    ls_termLimbs = 12,
};

typedef struct BigTerm
{
    uint32_t m[ls_termLimbs];
    int len;
    int exp;
    bool negative;
} BigTerm;

// m *= x for x < 2^64 (schoolbook on 32-bit limbs).
static void MulLimbs(BigTerm* t, uint64_t x)
{
    uint32_t y[2] = {(uint32_t)x, (uint32_t)(x >> 32)};
    uint32_t r[ls_termLimbs] = {0};
    for (int i = 0; i < t->len; ++i)
    {
        uint64_t carry = 0;
        for (int j = 0; j < 2; ++j)
        {
            uint64_t v = (uint64_t)t->m[i] * y[j] + r[i + j] + carry;
            r[i + j] = (uint32_t)v;
            carry = v >> 32;
        }
        for (int k = i + 2; carry != 0; ++k)
        {
            LS_ASSERT(k < ls_termLimbs);
            uint64_t v = (uint64_t)r[k] + carry;
            r[k] = (uint32_t)v;
            carry = v >> 32;
        }
    }
    int len = t->len + 2;
    if (len > ls_termLimbs)
    {
        len = ls_termLimbs;
    }
    while (len > 1 && r[len - 1] == 0)
    {
        --len;
    }
    memcpy(t->m, r, sizeof r);
    t->len = len;
}

// acc += m << bitOffset (acc holds ls_limbCount limbs, enough for any 6-factor term at any offset used here).
static void AddShifted(uint32_t* acc, const BigTerm* t, int bitOffset)
{
    int w = bitOffset >> 5;
    int b = bitOffset & 31;
    uint64_t carry = 0;
    int i = 0;
    for (; i <= t->len; ++i)
    {
        uint32_t low = i < t->len ? (uint32_t)((uint64_t)t->m[i] << b) : 0u;
        uint32_t high = (i > 0 && b > 0) ? (uint32_t)(t->m[i - 1] >> (32 - b)) : 0u;
        uint64_t v = (uint64_t)acc[w + i] + (low | high) + carry;
        acc[w + i] = (uint32_t)v;
        carry = v >> 32;
    }
    for (int k = w + i; carry != 0; ++k)
    {
        LS_ASSERT(k < ls_limbCount);
        uint64_t v = (uint64_t)acc[k] + carry;
        acc[k] = (uint32_t)v;
        carry = v >> 32;
    }
}

// Converts a product term into a big integer times 2^exp; false when a factor is zero.
static bool MakeBigTerm(const lsExactTerm* term, BigTerm* t)
{
    LS_ASSERT(term->count >= 1 && term->count <= LS_EXACT_MAX_FACTORS);
    t->m[0] = 1;
    t->len = 1;
    t->exp = 0;
    t->negative = false;
    for (int k = 0; k < term->count; ++k)
    {
        double f = term->f[k];
        LS_ASSERT(isfinite(f));
        if (f == 0.0)
        {
            return false;
        }
        // Split the IEEE 754 bits: f = m 2^e with m < 2^53 (subnormals have no implicit bit and e = -1074).
        uint64_t bits;
        memcpy(&bits, &f, sizeof bits);
        int biased = (int)((bits >> 52) & 0x7ff);
        uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
        if (biased != 0)
        {
            m |= UINT64_C(1) << 52;
        }
        MulLimbs(t, m);
        t->exp += (biased != 0 ? biased : 1) - 1075;
        t->negative = t->negative != (f < 0.0);
    }
    return true;
}

// The terms' positive and negative parts summed into pos and neg (ls_limbCount limbs each), aligned at the smallest
// exponent so that only the limbs these terms can reach are cleared and compared: *used of them, limb 0 weighing
// 2^*minExp. Returns how many terms are nonzero (0: nothing written).
static int Accumulate(const lsExactTerm* terms, int count, uint32_t* pos, uint32_t* neg, int* used, int* minExp)
{
    LS_ASSERT(count >= 0 && count <= LS_EXACT_MAX_TERMS);
    BigTerm big[LS_EXACT_MAX_TERMS];
    int n = 0;
    int lo = INT32_MAX, hi = INT32_MIN;
    for (int i = 0; i < count; ++i)
    {
        BigTerm* t = big + n;
        if (!MakeBigTerm(terms + i, t))
        {
            continue;
        }
        lo = t->exp < lo ? t->exp : lo;
        hi = t->exp > hi ? t->exp : hi;
        ++n;
    }
    if (n == 0)
    {
        return 0;
    }
    *used = (hi - lo) / 32 + ls_termLimbs + 4;
    *minExp = lo;
    LS_ASSERT(*used <= ls_limbCount);
    memset(pos, 0, (size_t)*used * sizeof pos[0]);
    memset(neg, 0, (size_t)*used * sizeof neg[0]);
    for (int i = 0; i < n; ++i)
    {
        AddShifted(big[i].negative ? neg : pos, big + i, big[i].exp - lo);
    }
    return n;
}

// The sign of pos - neg over their first `used` limbs.
static int CompareLimbs(const uint32_t* pos, const uint32_t* neg, int used)
{
    for (int k = used - 1; k >= 0; --k)
    {
        if (pos[k] != neg[k])
        {
            return pos[k] > neg[k] ? 1 : -1;
        }
    }
    return 0;
}

int lsExactSign(const lsExactTerm* terms, int count)
{
    uint32_t pos[ls_limbCount];
    uint32_t neg[ls_limbCount];
    int used = 0, minExp = 0;
    if (Accumulate(terms, count, pos, neg, &used, &minExp) == 0)
    {
        return 0;
    }
    return CompareLimbs(pos, neg, used);
}

double lsExactValue(const lsExactTerm* terms, int count)
{
    uint32_t pos[ls_limbCount];
    uint32_t neg[ls_limbCount];
    int used = 0, minExp = 0;
    if (Accumulate(terms, count, pos, neg, &used, &minExp) == 0)
    {
        return 0.0;
    }
    int sign = CompareLimbs(pos, neg, used);
    if (sign == 0)
    {
        return 0.0;
    }
    // |sum| = larger - smaller, limb by limb with a borrow, into pos.
    const uint32_t* big1 = sign > 0 ? pos : neg;
    const uint32_t* small = sign > 0 ? neg : pos;
    uint32_t* diff = sign > 0 ? pos : neg;
    uint64_t borrow = 0;
    for (int k = 0; k < used; ++k)
    {
        uint64_t v = (uint64_t)big1[k] - small[k] - borrow;
        diff[k] = (uint32_t)v;
        borrow = (v >> 32) & 1u;
    }
    int top = used - 1;
    while (top > 0 && diff[top] == 0)
    {
        --top;
    }
    // The top three limbs (at least 65 significant bits; the rest is below 2^-64 of the value), rounded twice on the
    // way: within about an ulp.
    double m = (double)diff[top];
    for (int k = top - 1; k >= top - 2 && k >= 0; --k)
    {
        m = m * 0x1p32 + (double)diff[k];
    }
    int low = top - 2 > 0 ? top - 2 : 0;
    return (sign > 0 ? 1.0 : -1.0) * ldexp(m, minExp + 32 * low);
}

// The accumulator aligns every term below the smallest possible exponent, 6 (-1074), so terms can be added one by
// one.
enum
{
    ls_sumBaseExp = -6 * 1126,
};
_Static_assert(LS_EXACT_SUM_LIMBS >= ls_limbCount + 2, "the accumulator must span every 6-factor product");

void lsExactSum_Clear(lsExactSum* sum) { memset(sum, 0, sizeof *sum); }

void lsExactSum_Add(lsExactSum* sum, const lsExactTerm* term)
{
    BigTerm t;
    if (!MakeBigTerm(term, &t))
    {
        return;
    }
    int offset = t.exp - ls_sumBaseExp;
    LS_ASSERT(offset >= 0);
    AddShifted(t.negative ? sum->neg : sum->pos, &t, offset);
    // Carries from up to 2^32 terms stay within two limbs above the term's top limb.
    int top = (offset >> 5) + t.len + 2;
    sum->top = top > sum->top ? top : sum->top;
    ++sum->terms;
}

void lsExactSum_AddProduct(lsExactSum* sum, const lsExactTerm* a, int na, const lsExactTerm* b, int nb, double scale)
{
    for (int i = 0; i < na; ++i)
    {
        for (int j = 0; j < nb; ++j)
        {
            lsExactTerm t;
            int count = 0;
            lsExactAppendProduct(&t, &count, a + i, 1, b + j, 1, scale);
            lsExactSum_Add(sum, &t);
        }
    }
}

int lsExactSum_Sign(const lsExactSum* sum)
{
    LS_ASSERT(sum->terms < (1 << 30));
    int top = sum->top < LS_EXACT_SUM_LIMBS ? sum->top : LS_EXACT_SUM_LIMBS - 1;
    for (int k = top; k >= 0; --k)
    {
        if (sum->pos[k] != sum->neg[k])
        {
            return sum->pos[k] > sum->neg[k] ? 1 : -1;
        }
    }
    return 0;
}

void lsExactAppendProduct(lsExactTerm* out, int* count, const lsExactTerm* a, int na, const lsExactTerm* b, int nb,
                          double scale)
{
    for (int i = 0; i < na; ++i)
    {
        for (int j = 0; j < nb; ++j)
        {
            LS_ASSERT(*count < LS_EXACT_MAX_TERMS);
            LS_ASSERT(a[i].count + b[j].count <= LS_EXACT_MAX_FACTORS);
            lsExactTerm* t = out + (*count)++;
            t->count = 0;
            for (int k = 0; k < a[i].count; ++k)
            {
                t->f[t->count++] = a[i].f[k];
            }
            for (int k = 0; k < b[j].count; ++k)
            {
                t->f[t->count++] = b[j].f[k];
            }
            if (scale == -1.0 && t->count > 0)
            {
                t->f[0] = -t->f[0];
            }
            else if (scale != 1.0)
            {
                LS_ASSERT(t->count < LS_EXACT_MAX_FACTORS);
                t->f[t->count++] = scale; // a factor, not a multiplication, so nothing can overflow
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Orientation

int lsOrient(lsVec2 a, lsVec2 b, lsVec2 c)
{
    double dx1 = b.x - a.x, dy1 = b.y - a.y;
    double dx2 = c.x - a.x, dy2 = c.y - a.y;
    double left = dx1 * dy2;
    double right = dy1 * dx2;
    double det = left - right;
    double sum = fabs(left) + fabs(right);
    double bound = LS_FILTER_ORIENT * sum;
    if (fabs(det) > bound && bound >= LS_FILTER_TINY && sum <= DBL_MAX)
    {
        return det > 0.0 ? 1 : -1;
    }

    // Exact differences (common with axis-aligned or integer-ish coordinates): four fma products decide.
    if (lsTwoDiffTail(b.x, a.x, dx1) == 0.0 && lsTwoDiffTail(b.y, a.y, dy1) == 0.0 &&
        lsTwoDiffTail(c.x, a.x, dx2) == 0.0 && lsTwoDiffTail(c.y, a.y, dy2) == 0.0 && IsSafeFactor(dx1) &&
        IsSafeFactor(dy1) && IsSafeFactor(dx2) && IsSafeFactor(dy2))
    {
        double el = lsTwoProductTail(dx1, dy2, left), er = lsTwoProductTail(dy1, dx2, right);
        if (el == 0.0 && er == 0.0)
        {
            return left > right ? 1 : (left < right ? -1 : 0); // both products exact: compare them
        }
        return lsSignOfSum4(left, el, -right, -er);
    }

    // cross(b - a, c - a) = bx cy - bx ay - ax cy - by cx + by ax + ay cx (the ax ay terms cancel).
    lsExactTerm terms[6] = {
        {{b.x, c.y}, 2}, {{-b.x, a.y}, 2}, {{-a.x, c.y}, 2}, {{-b.y, c.x}, 2}, {{b.y, a.x}, 2}, {{a.y, c.x}, 2},
    };
    return lsExactSign(terms, 6);
}

int lsOrientDir(lsVec2 o, lsVec2 d, lsVec2 p)
{
    double px = p.x - o.x, py = p.y - o.y;
    double left = d.x * py;
    double right = d.y * px;
    double det = left - right;
    double sum = fabs(left) + fabs(right);
    double bound = LS_FILTER_ORIENT * sum;
    if (fabs(det) > bound && bound >= LS_FILTER_TINY && sum <= DBL_MAX)
    {
        return det > 0.0 ? 1 : -1;
    }

    if (lsTwoDiffTail(p.x, o.x, px) == 0.0 && lsTwoDiffTail(p.y, o.y, py) == 0.0 && IsSafeFactor(px) &&
        IsSafeFactor(py) && IsSafeFactor(d.x) && IsSafeFactor(d.y))
    {
        double el = lsTwoProductTail(d.x, py, left), er = lsTwoProductTail(d.y, px, right);
        if (el == 0.0 && er == 0.0)
        {
            return left > right ? 1 : (left < right ? -1 : 0); // both products exact: compare them
        }
        return lsSignOfSum4(left, el, -right, -er);
    }

    // cross(d, p - o) = dx py - dx oy - dy px + dy ox
    lsExactTerm terms[4] = {{{d.x, p.y}, 2}, {{-d.x, o.y}, 2}, {{-d.y, p.x}, 2}, {{d.y, o.x}, 2}};
    return lsExactSign(terms, 4);
}

int lsSignOfDot2(double a, double b, double c, double d)
{
    double p = a * b;
    double q = c * d;
    double s = p + q;
    double sum = fabs(p) + fabs(q);
    double bound = 0x1p-51 * sum;
    if (fabs(s) > bound && bound >= LS_FILTER_TINY && sum <= DBL_MAX)
    {
        return s > 0.0 ? 1 : -1;
    }
    if (IsSafeFactor(a) && IsSafeFactor(b) && IsSafeFactor(c) && IsSafeFactor(d))
    {
        return lsSignOfSum4(p, lsTwoProductTail(a, b, p), q, lsTwoProductTail(c, d, q));
    }
    lsExactTerm terms[2] = {{{a, b}, 2}, {{c, d}, 2}};
    return lsExactSign(terms, 2);
}

int lsSignOfDotDiff(lsVec2 p, lsVec2 q, lsVec2 r, lsVec2 s)
{
    double ux = p.x - q.x, uy = p.y - q.y, vx = r.x - s.x, vy = r.y - s.y;
    double l = ux * vx, m = uy * vy;
    double v = l + m;
    // Rounded differences (eps each), products, sum: under 4 eps of |l| + |m|; 8 eps leaves margin.
    double bound = LS_FILTER_BOUND8 * (fabs(l) + fabs(m));
    if (fabs(v) > bound && bound >= LS_FILTER_TINY && bound <= DBL_MAX)
    {
        return v > 0.0 ? 1 : -1;
    }
    lsExactTerm terms[8] = {
        {{p.x, r.x}, 2}, {{-p.x, s.x}, 2}, {{-q.x, r.x}, 2}, {{q.x, s.x}, 2},
        {{p.y, r.y}, 2}, {{-p.y, s.y}, 2}, {{-q.y, r.y}, 2}, {{q.y, s.y}, 2},
    };
    return lsExactSign(terms, 8);
}

int lsSignOfProductSum(const double* x, const double* y, int n)
{
    LS_ASSERT(n >= 1 && n <= 4);
    double sum = 0.0, mag = 0.0;
    for (int i = 0; i < n; ++i)
    {
        double p = x[i] * y[i];
        sum += p;
        mag += fabs(p);
    }
    // n rounded products and n - 1 additions: under 7 eps of mag for n <= 4, so 8 eps (2^-50) covers it.
    double bound = LS_FILTER_BOUND8 * mag;
    if (fabs(sum) > bound && bound >= LS_FILTER_TINY && mag <= DBL_MAX)
    {
        return sum > 0.0 ? 1 : -1;
    }
    bool safe = true;
    for (int i = 0; i < n; ++i)
    {
        safe = safe && IsSafeFactor(x[i]) && IsSafeFactor(y[i]);
    }
    if (safe)
    {
        double terms[8];
        for (int i = 0; i < n; ++i)
        {
            double p = x[i] * y[i];
            double* pair = terms + (ptrdiff_t)2 * i;
            pair[0] = p;
            pair[1] = lsTwoProductTail(x[i], y[i], p);
        }
        return SignOfExpansion(terms, 2 * n);
    }
    lsExactTerm terms[4];
    for (int i = 0; i < n; ++i)
    {
        terms[i] = (lsExactTerm){{x[i], y[i]}, 2};
    }
    return lsExactSign(terms, n);
}
