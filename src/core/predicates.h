// lidarsim core: exact sign of small polynomials in doubles (the engine under lsOrient and the geometry routines).
// Internal to the core: geometry.c and sweep.c use it to decide boundary cases exactly; lsOrient and lsOrientDir
// (declared in geometry.h) are the public face.
#pragma once

#include "lidarsim/vec.h"

#include <stdbool.h>

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

/// Exact sign of dot(p - q, r - s).
int lsSignOfDotDiff(lsVec2 p, lsVec2 q, lsVec2 r, lsVec2 s);

/// Exact sign of x[0] y[0] + ... + x[n-1] y[n-1] for n in 1..4 (filter, then fma expansions, then big integers).
int lsSignOfProductSum(const double* x, const double* y, int n);

/// True when the rounded a - b equals the exact difference (its two-sum tail is zero).
bool lsIsExactDifference(double a, double b);
