// lidarsim core (private): exact arithmetic in doubles, one module for the whole core. Three layers, cheapest first:
// - error-free transformations (Knuth's two-sum, the fma two-product): a rounded result and its exact error;
// - double-double values (hi + lo, about 2^-104 relative): accurate values where rounding would cost too much (a
//   grazing beam's hit point);
// - exact signs of small polynomials: a floating-point filter with a proven bound, then fma expansions, then the
//   doubles' mantissas as big integers (exact.c), the engine under lsOrient and the geometry and GJK routines.
// Rounding order matters: every helper here fixes its operations, so moving a caller onto it keeps its answers.
#pragma once

#include "lidarsim/vec.h"

#include <math.h>
#include <stdbool.h>

// ---------------------------------------------------------------------------------------------------------------------
// Error-free transformations (Shewchuk 1997, "Adaptive Precision Floating-Point Arithmetic"): exact for finite
// doubles as long as nothing overflows (and, for products, nothing underflows).

/// a + b = *x + *y exactly, *x the rounded sum (Knuth's two-sum).
static inline void lsTwoSum(double a, double b, double* x, double* y)
{
    double s = a + b;
    double bv = s - a;
    double av = s - bv;
    *x = s;
    *y = (a - av) + (b - bv);
}

/// The rounding error of x = a - b (a - b = x + tail exactly; zero when the difference is exact).
static inline double lsTwoDiffTail(double a, double b, double x)
{
    double bv = a - x;
    double av = x + bv;
    return (a - av) + (bv - b);
}

/// a - b = *x + *y exactly, *x the rounded difference (Knuth's two-difference).
static inline void lsTwoDiff(double a, double b, double* x, double* y)
{
    double d = a - b;
    *y = lsTwoDiffTail(a, b, d);
    *x = d;
}

/// The rounding error of p = a * b (a b = p + tail exactly): one fma.
static inline double lsTwoProductTail(double a, double b, double p) { return fma(a, b, -p); }

/// True when the rounded a - b equals the exact difference (its two-sum tail is zero).
static inline bool lsIsExactDifference(double a, double b) { return lsTwoDiffTail(a, b, a - b) == 0.0; }

// ---------------------------------------------------------------------------------------------------------------------
// Double-double values (value = hi + lo, |lo| <= ulp(hi) / 2): sums by two-sum, products by fma; about 2^-104
// relative accuracy, not exact.

/// A double-double value hi + lo.
typedef struct lsDD
{
    double hi, lo;
} lsDD;

/// hi + lo renormalized (fast two-sum: |hi| >= |lo|).
static inline lsDD lsRenormDD(double hi, double lo)
{
    double s = hi + lo;
    return (lsDD){s, lo - (s - hi)};
}

/// a - b exactly, as a double-double.
static inline lsDD lsDiffDD(double a, double b)
{
    lsDD r;
    lsTwoDiff(a, b, &r.hi, &r.lo);
    return r;
}

/// a + b.
static inline lsDD lsAddDD(lsDD a, lsDD b)
{
    double s, e;
    lsTwoSum(a.hi, b.hi, &s, &e);
    return lsRenormDD(s, e + a.lo + b.lo);
}

/// -a (exact).
static inline lsDD lsNegDD(lsDD a) { return (lsDD){-a.hi, -a.lo}; }

/// a b.
static inline lsDD lsMulDD(lsDD a, lsDD b)
{
    double p = a.hi * b.hi;
    double e = lsTwoProductTail(a.hi, b.hi, p);
    return lsRenormDD(p, e + (a.hi * b.lo + a.lo * b.hi));
}

/// ux vy - uy vx for double-double components, rounded to a double within eps |result| + 2^-103 (|ux vy| + |uy vx|):
/// the two main products with their fma errors, their difference with its rounding error, and the first-order low
/// terms (the products of two low parts are left out). Where the result cancels below about 2^-50 of the products,
/// that is more than an ulp: lsCrossExactDD is then the accurate one.
static inline double lsCrossDD(lsDD ux, lsDD uy, lsDD vx, lsDD vy)
{
    double p1 = ux.hi * vy.hi, p2 = uy.hi * vx.hi;
    double e1 = lsTwoProductTail(ux.hi, vy.hi, p1), e2 = lsTwoProductTail(uy.hi, vx.hi, p2);
    double s, sl;
    lsTwoDiff(p1, p2, &s, &sl);
    double low = ux.hi * vy.lo + ux.lo * vy.hi - uy.hi * vx.lo - uy.lo * vx.hi;
    return s + (sl + (e1 - e2) + low);
}

/// The most products lsSumOfProductsExact adds.
#define LS_EXACT_SUM_MAX_PRODUCTS 8

/// x[0] y[0] + ... + x[n-1] y[n-1] (n in 1..LS_EXACT_SUM_MAX_PRODUCTS) into *sum, within about an ulp however far it
/// cancels: the products' fma two-product expansions summed exactly by Grow-Expansion, then added up from the smallest
/// component. False (and *sum untouched) when a factor is outside zero and [2^-480, 2^500], where a product or its
/// error could underflow or overflow. About n^2 two-sums: for the values a rounded formula cannot resolve (exact.c).
bool lsSumOfProductsExact(const double* x, const double* y, int n, double* sum);

/// ux vy - uy vx for double-double components from the exact sum of its eight products (lsSumOfProductsExact),
/// rounded within about an ulp however far it cancels; lsCrossDD's value when a component is outside [2^-480, 2^500].
/// For the crossings lsCrossDD cannot resolve (exact.c).
double lsCrossExactDD(lsDD ux, lsDD uy, lsDD vx, lsDD vy);

// ---------------------------------------------------------------------------------------------------------------------
// Exact signs (exact.c). Each starts with a floating-point filter: the rounded value decides when it is larger than
// a proven bound on its error; these are the bounds the core's filters share.

/// Shewchuk's ccwerrboundA = (3 + 16 eps) eps with eps = 2^-53: |computed det - det| <= bound (|l| + |r|) for
/// det = l - r where l and r are products of rounded differences, when nothing underflows or overflows.
#define LS_FILTER_ORIENT ((3.0 + 16.0 * 0x1p-53) * 0x1p-53)
/// 8 eps: a generous relative bound for short sums of products of rounded differences (each analysed where it is
/// used to be under 6 eps); a loose bound only sends more calls to the exact path, never a wrong sign.
#define LS_FILTER_BOUND8 0x1p-50
/// Below this an error bound may be spoiled by underflow (absolute errors of 2^-1075 an operation), so the filters
/// defer to exact arithmetic.
#define LS_FILTER_TINY 0x1p-960
/// How ill-conditioned a segment crossing's fraction num / den may be and still be computed in doubles: beyond
/// sDen > LS_CROSSING_ILL |den| or sNum > LS_CROSSING_ILL |num| (s the sums of the products' magnitudes) the whole
/// routine recomputes both in double-double. The rounding of the differences and products costs the fraction up to
/// about 4 LS_CROSSING_ILL eps of relative accuracy: 2^5 keeps it within about 128 ulp (3e-14) at any incidence.
/// 2^13 let a beam meeting an 880 m wall at 2e-4 rad come back 2e-12 too long (9 800 ulp).
#define LS_CROSSING_ILL 0x1p5
/// The same for a circle's nearer root cSide / q: beyond rdd > LS_CIRCLE_ILL |disc| (nearly tangent) or ff >
/// LS_CIRCLE_ILL |cSide| (the origin near the circle) the whole routine recomputes both in double-double. 2^13 left
/// beams 1e-14 of the radius from tangency 2.3e-13 off.
#define LS_CIRCLE_ILL 0x1p5

/// The most factors in one term (degree of the polynomial).
#define LS_EXACT_MAX_FACTORS 6
/// The most terms in one exact sum.
#define LS_EXACT_MAX_TERMS 64

/// One product term f[0] * f[1] * ... * f[count - 1] of finite doubles (count 1..LS_EXACT_MAX_FACTORS).
/// Negate a factor to subtract the term; multiply by 2.0 as a factor for a coefficient of 2 (both are exact).
typedef struct lsExactTerm
{
    double f[LS_EXACT_MAX_FACTORS];
    int count;
} lsExactTerm;

/// Sign (-1, 0, +1) of the exact real sum of the terms, whatever their magnitudes (subnormal to DBL_MAX): the
/// doubles' mantissas are multiplied and added as big integers, so nothing is rounded, underflows or overflows.
/// Slow (hundreds of ns); call it only when a floating-point filter cannot decide.
int lsExactSign(const lsExactTerm* terms, int count);

/// The exact real sum of the terms rounded to a double within about an ulp (the big-integer sum of lsExactSign, its
/// top 96 bits converted), whatever the cancellation; 0 only for a sum of exactly 0. Slow (hundreds of ns): for values
/// no shorter formula resolves. Underflows and overflows as a double would.
double lsExactValue(const lsExactTerm* terms, int count);

/// Limbs of an lsExactSum: 32-bit words spanning every 6-factor product of doubles, plus carries.
#define LS_EXACT_SUM_LIMBS 416

/// An exact running sum of product terms, for sums too long for one lsExactTerm array (thousands of terms).
/// About 3.3 kB; clear it before use.
typedef struct lsExactSum
{
    unsigned int pos[LS_EXACT_SUM_LIMBS];
    unsigned int neg[LS_EXACT_SUM_LIMBS];
    int top;
    int terms;
} lsExactSum;

/// Empties the sum.
void lsExactSum_Clear(lsExactSum* sum);
/// Adds one product term exactly.
void lsExactSum_Add(lsExactSum* sum, const lsExactTerm* term);
/// Adds scale (sum a)(sum b) exactly, term by term (scale 1.0, -1.0, or any other value as one more factor).
void lsExactSum_AddProduct(lsExactSum* sum, const lsExactTerm* a, int na, const lsExactTerm* b, int nb, double scale);
/// Sign (-1, 0, +1) of the exact sum.
int lsExactSum_Sign(const lsExactSum* sum);

/// Appends to out (which holds *count terms, capacity LS_EXACT_MAX_TERMS) every product of a term of a with a term
/// of b, multiplied by the factor scale (1.0 or -1.0 to subtract; any power of two is exact): expands (sum a)(sum b).
void lsExactAppendProduct(lsExactTerm* out, int* count, const lsExactTerm* a, int na, const lsExactTerm* b, int nb,
                          double scale);

/// Sign of a + b + c + d (each finite) computed exactly with error-free additions (no overflow for |x| < 2^1020).
int lsSignOfSum4(double a, double b, double c, double d);

/// Exact sign of a*b + c*d for finite doubles (a fast filter, then exact arithmetic).
int lsSignOfDot2(double a, double b, double c, double d);

/// Exact sign (-1, 0, +1) of cross(a, b) = a.x b.y - a.y b.x for any finite vectors (lsSignOfDot2). GJK and EPA
/// decide origin-on-edge cases with it.
static inline int lsCrossSign(lsVec2 a, lsVec2 b) { return lsSignOfDot2(a.x, b.y, -a.y, b.x); }

/// Exact sign of dot(p - q, r - s).
int lsSignOfDotDiff(lsVec2 p, lsVec2 q, lsVec2 r, lsVec2 s);

/// Exact sign of x[0] y[0] + ... + x[n-1] y[n-1] for n in 1..4 (filter, then fma expansions, then big integers).
int lsSignOfProductSum(const double* x, const double* y, int n);
