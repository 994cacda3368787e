// Sweeps over one step (geometry.h): a moving point against a moving segment, and the time of first contact of a
// moving circle with a static or moving segment. Motion is linear in t in [0, 1]. Degenerate cases (vanishing
// coefficients, a double root, a point sliding along the segment's line) are classified with exact signs
// (exact.h); the roots themselves are rounded.
#include "core/sweep.h"
#include "lidarsim/geometry.h"

#include "core/exact.h"
#include "lidarsim/base.h"

#include <float.h>
#include <math.h>

static const double s_eps = 0x1p-52;

static inline double Clamp01(double x)
{
    if (!(x >= 0.0))
    {
        return 0.0;
    }
    return x > 1.0 ? 1.0 : x;
}

// Largest magnitude among the coordinates (a scale for tolerances).
static double MaxAbs6(lsVec2 a, lsVec2 b, lsVec2 c, lsVec2 d, lsVec2 e, lsVec2 f)
{
    double m = lsFmax(lsFmax(fabs(a.x), fabs(a.y)), lsFmax(fabs(b.x), fabs(b.y)));
    m = lsFmax(m, lsFmax(lsFmax(fabs(c.x), fabs(c.y)), lsFmax(fabs(d.x), fabs(d.y))));
    return lsFmax(m, lsFmax(lsFmax(fabs(e.x), fabs(e.y)), lsFmax(fabs(f.x), fabs(f.y))));
}

// ---------------------------------------------------------------------------------------------------------------------
// Moving point against moving segment

// A vector given exactly as a sum of input coordinates (x terms and y terms, each +-1 times a double).
typedef struct ExactVec
{
    lsExactTerm x[4], y[4];
    int n;
} ExactVec;

static ExactVec ExactDiff(lsVec2 u, lsVec2 v) // u - v
{
    ExactVec e = {{{{u.x}, 1}, {{-v.x}, 1}}, {{{u.y}, 1}, {{-v.y}, 1}}, 2};
    return e;
}

static ExactVec ExactDiff2(lsVec2 u1, lsVec2 u0, lsVec2 v1, lsVec2 v0) // (u1 - u0) - (v1 - v0)
{
    ExactVec e = {{{{u1.x}, 1}, {{-u0.x}, 1}, {{-v1.x}, 1}, {{v0.x}, 1}},
                  {{{u1.y}, 1}, {{-u0.y}, 1}, {{-v1.y}, 1}, {{v0.y}, 1}},
                  4};
    return e;
}

// True when u - v is computed exactly in both components.
static inline bool ExactVector(lsVec2 u, lsVec2 v)
{
    return lsIsExactDifference(u.x, v.x) && lsIsExactDifference(u.y, v.y);
}

// True when (u1 - u0) - (v1 - v0) is computed exactly in both components.
static inline bool ExactVector2(lsVec2 u1, lsVec2 u0, lsVec2 v1, lsVec2 v0)
{
    lsVec2 du = lsSub(u1, u0), dv = lsSub(v1, v0);
    return ExactVector(u1, u0) && ExactVector(v1, v0) && ExactVector(du, dv);
}

// Appends the terms of cross(u, v) to out.
static void AppendCross(lsExactTerm* out, int* count, const ExactVec* u, const ExactVec* v)
{
    lsExactAppendProduct(out, count, u->x, u->n, v->y, v->n, 1.0);
    lsExactAppendProduct(out, count, u->y, u->n, v->x, v->n, -1.0);
}

// Roots of the quadratic A t^2 + B t + C in [0, 1] (A != 0), ascending; a double root once. discSign is the exact
// sign of B^2 - 4 A C.
static int QuadraticRoots(double A, double B, double C, int discSign, double roots[2])
{
    if (discSign < 0)
    {
        return 0;
    }
    if (discSign == 0)
    {
        roots[0] = -B / (2.0 * A);
        return 1;
    }
    double disc = lsFmax(B * B - 4.0 * A * C, 0.0);
    double sq = sqrt(disc);
    if (!isfinite(sq))
    {
        // Rescale: the roots do not change when all coefficients are divided by the largest.
        double m = lsFmax(fabs(A), lsFmax(fabs(B), fabs(C)));
        A /= m;
        B /= m;
        C /= m;
        sq = sqrt(lsFmax(B * B - 4.0 * A * C, 0.0));
    }
    // Stable form (no cancellation): q = -(B + sign(B) sqrt(disc)) / 2, roots q / A and C / q.
    double q = -0.5 * (B + (B >= 0.0 ? sq : -sq));
    double r1 = q / A;
    double r2 = q != 0.0 ? C / q : -r1;
    roots[0] = lsFmin(r1, r2);
    roots[1] = lsFmax(r1, r2);
    return roots[0] == roots[1] ? 1 : 2;
}

// Sign of a rounded value whose error is under bound; 2 when the bound cannot decide.
static inline int FilteredSign(double value, double bound)
{
    if (fabs(value) > bound && bound >= LS_FILTER_TINY && bound <= DBL_MAX)
    {
        return value > 0.0 ? 1 : -1;
    }
    return 2;
}

// The exact expansions of A = b x d and B = a x d + b x c in the input coordinates (32 products each).
static void ExpandCoefficients(lsVec2 p0, lsVec2 p1, lsVec2 q0, lsVec2 q1, lsVec2 c0, lsVec2 c1, lsExactTerm* aTerms,
                               int* na, lsExactTerm* bTerms, int* nb)
{
    ExactVec ea = ExactDiff(c0, p0), eb = ExactDiff2(c1, c0, p1, p0), ec = ExactDiff(q0, p0),
             ed = ExactDiff2(q1, q0, p1, p0);
    *na = 0;
    *nb = 0;
    AppendCross(aTerms, na, &eb, &ed);
    AppendCross(bTerms, nb, &ea, &ed);
    AppendCross(bTerms, nb, &eb, &ec);
}

// Fills a hit at time t if the point lies on the segment then (s within a rounding tolerance of [0, 1]).
static bool MakeSweepHit(lsVec2 p0, lsVec2 p1, lsVec2 q0, lsVec2 q1, lsVec2 c0, lsVec2 c1, double t, double scale,
                         lsSweepHit* hit)
{
    lsVec2 p = lsLerp(p0, p1, t), q = lsLerp(q0, q1, t), c = lsLerp(c0, c1, t);
    lsVec2 w = lsSub(q, p), z = lsSub(c, p);
    double ww = lsDot(w, w);
    double tol = 64.0 * s_eps * scale; // positions at t are rounded to a few ulps of the largest coordinate
    hit->t = t;
    hit->point = c;
    if (!(sqrt(ww) > tol))
    {
        // The segment is (within rounding) a point at this time: hit when the moving point coincides with it.
        hit->s = 0.0;
        return lsLength(z) <= 2.0 * tol;
    }
    double s = lsDot(z, w) / ww;
    double sTol = 2.0 * tol / sqrt(ww);
    hit->s = Clamp01(s);
    return s >= -sTol && s <= 1.0 + sTol;
}

// The point slides along the segment's line for all t: the first time it is on the closed segment, where
// g(t) = dot(z, w - z) >= 0 (z = a + t b from p to the point, w = c + t d from p to q).
static int SweepAlongLine(lsVec2 p0, lsVec2 p1, lsVec2 q0, lsVec2 q1, lsVec2 c0, lsVec2 c1, lsVec2 a, lsVec2 b,
                          lsVec2 c, lsVec2 d, double scale, lsSweepHit hits[2])
{
    // Exactly on the segment at t = 0 or at t = 1 (collinear there, so between the endpoints is a dot sign).
    double times[6];
    int n = 0;
    int exactIndex = -1; // a candidate decided exactly (t = 0 or t = 1)
    if (lsSignOfDotDiff(c0, p0, q0, c0) >= 0)
    {
        exactIndex = n;
        times[n++] = 0.0;
    }
    else
    {
        lsVec2 cma = lsSub(c, a), dmb = lsSub(d, b);
        double g2 = lsDot(b, dmb), g1 = lsDot(a, dmb) + lsDot(b, cma), g0 = lsDot(a, cma);
        if (g2 != 0.0)
        {
            double disc = g1 * g1 - 4.0 * g2 * g0;
            double sq = sqrt(lsFmax(disc, 0.0));
            double qv = -0.5 * (g1 + (g1 >= 0.0 ? sq : -sq));
            if (isfinite(qv) && qv != 0.0)
            {
                times[n++] = qv / g2;
                times[n++] = g0 / qv;
            }
            times[n++] = -g1 / (2.0 * g2); // vertex: a tangent touch whose disc rounded below zero
        }
        else if (g1 != 0.0)
        {
            times[n++] = -g0 / g1;
        }
        if (lsSignOfDotDiff(c1, p1, q1, c1) >= 0)
        {
            exactIndex = n;
            times[n++] = 1.0;
        }
    }
    // Earliest candidate in [0, 1] at which the point is on the segment (t = 0 and t = 1 were decided exactly).
    double best = 2.0;
    lsSweepHit hit = {0.0, 0.0, {0.0, 0.0}};
    for (int i = 0; i < n; ++i)
    {
        double t = times[i];
        if (!(t >= 0.0 && t <= 1.0) || t >= best)
        {
            continue;
        }
        lsSweepHit h;
        if (MakeSweepHit(p0, p1, q0, q1, c0, c1, t, scale, &h) || i == exactIndex)
        {
            best = t;
            hit = h;
        }
    }
    if (best > 1.0)
    {
        return 0;
    }
    hits[0] = hit;
    return 1;
}

int lsSweepPointSegment(lsVec2 p0, lsVec2 p1, lsVec2 q0, lsVec2 q1, lsVec2 c0, lsVec2 c1, lsSweepHit hits[2])
{
    LS_ASSERT(lsIsValidVec2(p0) && lsIsValidVec2(p1) && lsIsValidVec2(q0) && lsIsValidVec2(q1));
    LS_ASSERT(lsIsValidVec2(c0) && lsIsValidVec2(c1) && hits != NULL);
    // The segment stays inside the box of its four endpoint positions and the point inside the box of its path.
    lsAABB segmentBox = lsAABB_Union(lsAABB_OfSegment(p0, p1), lsAABB_OfSegment(q0, q1));
    if (!lsAABB_Overlaps(segmentBox, lsAABB_OfSegment(c0, c1)))
    {
        return 0;
    }
    lsVec2 a = lsSub(c0, p0);
    lsVec2 b = lsSub(lsSub(c1, c0), lsSub(p1, p0));
    lsVec2 c = lsSub(q0, p0);
    lsVec2 d = lsSub(lsSub(q1, q0), lsSub(p1, p0));
    double scale = MaxAbs6(p0, p1, q0, q1, c0, c1);

    // Error scales of the components: a = c0 - p0 is off by eps |a|; b = (c1 - c0) - (p1 - p0) by under
    // 2 eps (|c1 - c0| + |p1 - p0|), and likewise c and d. Scale-free, so large offsets do not loosen the filters.
    lsVec2 dc = lsSub(c1, c0), dp = lsSub(p1, p0), dq = lsSub(q1, q0);
    lsVec2 ma = {fabs(a.x), fabs(a.y)}, mc = {fabs(c.x), fabs(c.y)};
    lsVec2 mb = {fabs(dc.x) + fabs(dp.x), fabs(dc.y) + fabs(dp.y)};
    lsVec2 md = {fabs(dq.x) + fabs(dp.x), fabs(dq.y) + fabs(dp.y)};

    // A t^2 + B t + C with A = b x d, B = a x d + b x c, C = a x c (geometry.h). With the component errors above,
    // one cross product is off by under 6 eps of its magnitude scale (|ux| |vy| + |uy| |vx| of the bounds), and B
    // by under 13 eps; the filters use 16 and 32 eps.
    double A = lsCross(b, d);
    double B = lsCross(a, d) + lsCross(b, c);
    double C = lsCross(a, c);
    double eA = 0x1p-49 * (mb.x * md.y + mb.y * md.x);
    double eB = 0x1p-48 * (ma.x * md.y + ma.y * md.x + mb.x * mc.y + mb.y * mc.x);
    double eC = 0x1p-49 * (ma.x * mc.y + ma.y * mc.x);
    // When every component difference above is exact (static segments, grid coordinates), the coefficients are
    // short sums of products of exact doubles; otherwise they are expanded in the input coordinates.
    bool exactComponents =
        ExactVector(c0, p0) && ExactVector(q0, p0) && ExactVector2(c1, c0, p1, p0) && ExactVector2(q1, q0, p1, p0);
    lsExactTerm aTerms[LS_EXACT_MAX_TERMS], bTerms[LS_EXACT_MAX_TERMS];
    int na = 0, nb = 0; // built only when a filter cannot decide
    int signA, signB;
    if (exactComponents)
    {
        double ax[2] = {b.x, -b.y}, ay[2] = {d.y, d.x};
        double bx[4] = {a.x, -a.y, b.x, -b.y}, by[4] = {d.y, d.x, c.y, c.x};
        signA = lsSignOfProductSum(ax, ay, 2);
        signB = lsSignOfProductSum(bx, by, 4);
    }
    else
    {
        signA = FilteredSign(A, eA);
        signB = FilteredSign(B, eB);
        if (signA == 2 || signB == 2)
        {
            ExpandCoefficients(p0, p1, q0, q1, c0, c1, aTerms, &na, bTerms, &nb);
            signA = signA == 2 ? lsExactSign(aTerms, na) : signA;
            signB = signB == 2 ? lsExactSign(bTerms, nb) : signB;
        }
    }
    int signC = -lsOrient(p0, q0, c0); // C = cross(c0 - p0, q0 - p0)

    double roots[2];
    int rootCount = 0;
    if (signA == 0 && signB == 0 && signC == 0)
    {
        return SweepAlongLine(p0, p1, q0, q1, c0, c1, a, b, c, d, scale, hits);
    }
    if (signA == 0)
    {
        if (signB == 0)
        {
            return 0; // a nonzero constant: never on the line
        }
        roots[0] = signC == 0 ? 0.0 : -C / B;
        rootCount = 1;
    }
    else
    {
        int discSign;
        double disc = B * B - 4.0 * A * C;
        // |B| <= 8 eps-bounded value plus its error; a loose bound on the error of B^2 - 4 A C from those of A, B, C.
        double discBound = 2.0 * fabs(B) * eB + eB * eB + 4.0 * (fabs(A) * eC + fabs(C) * eA + eA * eC) +
                           0x1p-50 * (B * B + 4.0 * fabs(A * C));
        if (fabs(disc) > discBound && discBound >= LS_FILTER_TINY && discBound <= DBL_MAX)
        {
            discSign = disc > 0.0 ? 1 : -1;
        }
        else if (exactComponents)
        {
            // B^2 - 4 A C from the exact components: 16 + 4 products.
            lsExactTerm at[2] = {{{b.x, d.y}, 2}, {{-b.y, d.x}, 2}};
            lsExactTerm bt[4] = {{{a.x, d.y}, 2}, {{-a.y, d.x}, 2}, {{b.x, c.y}, 2}, {{-b.y, c.x}, 2}};
            lsExactTerm ct[2] = {{{a.x, c.y}, 2}, {{-a.y, c.x}, 2}};
            lsExactTerm terms[LS_EXACT_MAX_TERMS];
            int n = 0;
            lsExactAppendProduct(terms, &n, bt, 4, bt, 4, 1.0);
            lsExactAppendProduct(terms, &n, at, 2, ct, 2, -4.0);
            discSign = lsExactSign(terms, n);
        }
        else
        {
            // Exact B^2 - 4 A C from the inputs (about 1300 products of 4 or 5 doubles; rare).
            if (na == 0)
            {
                ExpandCoefficients(p0, p1, q0, q1, c0, c1, aTerms, &na, bTerms, &nb);
            }
            lsExactTerm cTerms[LS_EXACT_MAX_TERMS];
            int nc = 0;
            ExactVec ea = ExactDiff(c0, p0), ec = ExactDiff(q0, p0);
            AppendCross(cTerms, &nc, &ea, &ec);
            lsExactSum sum;
            lsExactSum_Clear(&sum);
            lsExactSum_AddProduct(&sum, bTerms, nb, bTerms, nb, 1.0);
            lsExactSum_AddProduct(&sum, aTerms, na, cTerms, nc, -4.0);
            discSign = lsExactSum_Sign(&sum);
        }
        rootCount = QuadraticRoots(A, B, C, discSign, roots);
        if (rootCount > 0 && signC == 0)
        {
            // A root is exactly 0: snap the nearer one (the other is -B / A).
            int k = rootCount == 2 && fabs(roots[1]) < fabs(roots[0]) ? 1 : 0;
            roots[k] = 0.0;
        }
    }
    // A root exactly at t = 1 when the point is on the segment's line at the end (exact orientation).
    if (rootCount > 0 && lsOrient(p1, q1, c1) == 0)
    {
        int k = rootCount == 2 && fabs(roots[1] - 1.0) < fabs(roots[0] - 1.0) ? 1 : 0;
        if (!(signC == 0 && roots[k] == 0.0))
        {
            roots[k] = 1.0;
        }
    }
    if (rootCount == 2 && roots[1] < roots[0])
    {
        double tmp = roots[0];
        roots[0] = roots[1];
        roots[1] = tmp;
    }
    int count = 0;
    for (int i = 0; i < rootCount; ++i)
    {
        double t = roots[i];
        if (!(t >= 0.0 && t <= 1.0) || (count > 0 && hits[count - 1].t == t))
        {
            continue;
        }
        if (MakeSweepHit(p0, p1, q0, q1, c0, c1, t, scale, hits + count))
        {
            ++count;
        }
    }
    return count;
}

// ---------------------------------------------------------------------------------------------------------------------
// Time of impact

// First t in [0, 1] with |a + t b| <= r, given |a| > r (a: from the obstacle point to the centre at t = 0, b: the
// relative motion). The smaller root of |b|^2 t^2 + 2 (a.b) t + |a|^2 - r^2 by the stable formula.
static bool FirstCapContact(lsVec2 a, lsVec2 b, double r, double* t)
{
    double bb = lsDot(b, b);
    double ab = lsDot(a, b);
    if (!(bb > 0.0) || !(ab < 0.0))
    {
        return false; // not moving, or moving away (the distance only grows)
    }
    double cr = lsCross(b, a);
    double disc = r * r * bb - cr * cr; // (a.b)^2 - |b|^2 (|a|^2 - r^2) by Lagrange's identity
    if (disc < 0.0)
    {
        return false;
    }
    double q = -ab + sqrt(disc);
    double cc = lsFmax(lsDot(a, a) - r * r, 0.0);
    double root = cc / q;
    if (!isfinite(root))
    {
        return false;
    }
    if (root > 1.0)
    {
        return false;
    }
    *t = lsFmax(root, 0.0);
    return true;
}

// Quick rejection: false only when the box of the circle's path, grown by the radius (plus a margin for the
// rounding of that growth), misses the box that holds the segment during the whole step.
static bool SweptBoxesOverlap(lsVec2 c0, lsVec2 c1, double radius, lsAABB segmentBox)
{
    lsAABB path = lsAABB_OfSegment(c0, c1);
    double scale =
        lsFmax(lsFmax(fabs(path.lower.x), fabs(path.upper.x)), lsFmax(fabs(path.lower.y), fabs(path.upper.y)));
    double pad = radius + 0x1p-50 * (scale + radius);
    lsAABB grown = {{path.lower.x - pad, path.lower.y - pad}, {path.upper.x + pad, path.upper.y + pad}};
    return lsAABB_Overlaps(grown, segmentBox);
}

bool lsTimeOfImpactCircleSegment(lsVec2 c0, lsVec2 c1, double radius, const lsSegment* segment, double* t)
{
    LS_ASSERT(lsIsValidVec2(c0) && lsIsValidVec2(c1) && radius >= 0.0 && t != NULL);
    lsVec2 a = segment->a, b = segment->b;
    if (!SweptBoxesOverlap(c0, c1, radius, lsAABB_OfSegment(a, b)))
    {
        return false;
    }
    lsCircle start = {c0, radius};
    if (lsSegmentOverlapsCircle(segment, &start))
    {
        *t = 0.0;
        return true;
    }
    lsVec2 v = lsSub(c1, c0);
    double best = 2.0, tc;
    if (FirstCapContact(lsSub(c0, a), v, radius, &tc))
    {
        best = lsFmin(best, tc);
    }
    if (FirstCapContact(lsSub(c0, b), v, radius, &tc))
    {
        best = lsFmin(best, tc);
    }
    // Interior: the centre reaches the line offset by r on its own side, h(t) = cross(e, c(t) - a) = +-r |e|, and
    // projects inside the segment then. (Touching the line where it projects outside is a cap contact, found above.)
    lsVec2 e = lsSub(b, a);
    double len = lsLength(e);
    if (len > 0.0)
    {
        double h0 = lsCross(e, lsSub(c0, a));
        double hv = lsCross(e, v);
        double rl = radius * len;
        if (h0 * hv < 0.0)
        {
            // Within r of the line already (no overlap by the exact test above, so by rounding, or beside an end):
            // contact now if it projects inside, else the caps decide.
            double ti = lsFmax(fabs(h0) - rl, 0.0) / fabs(hv);
            if (ti >= 0.0 && ti <= 1.0 && ti < best)
            {
                lsVec2 c = lsLerp(c0, c1, ti);
                double u = lsDot(lsSub(c, a), e) / (len * len);
                if (u >= 0.0 && u <= 1.0)
                {
                    best = ti;
                }
            }
        }
    }
    if (best > 1.0)
    {
        return false;
    }
    *t = best;
    return true;
}

// Value of the polynomial sum k[i] t^i (degree n) by Horner's rule.
static double Poly(const double* k, int n, double t)
{
    double v = k[n];
    for (int i = n - 1; i >= 0; --i)
    {
        v = v * t + k[i];
    }
    return v;
}

// The root of polynomial k in [x0, x1], where f0 = k(x0) and f1 = k(x1) have opposite signs: the Illinois variant
// of regula falsi (superlinear), with a bisection step whenever the bracket fails to halve twice in a row, so it
// always narrows; at most 200 evaluations. Returns the bracket's end on x1's side, where the sign has changed.
static double BracketedRoot(const double* k, int n, double x0, double x1, double f0, double f1)
{
    int side = 0, slow = 0;
    double lastWidth = x1 - x0;
    for (int it = 0; it < 200 && x1 - x0 > 0x1p-52 * lsFmax(1.0, fabs(x1)); ++it)
    {
        double x = slow >= 2 ? 0.5 * (x0 + x1) : x1 - f1 * (x1 - x0) / (f1 - f0);
        if (!(x > x0 && x < x1))
        {
            x = 0.5 * (x0 + x1);
            if (!(x > x0 && x < x1))
            {
                break; // adjacent doubles
            }
        }
        double fx = Poly(k, n, x);
        if (fx == 0.0)
        {
            return x;
        }
        if ((fx < 0.0) == (f1 < 0.0))
        {
            x1 = x;
            f1 = fx;
            f0 = side == 1 ? 0.5 * f0 : f0; // Illinois: halve the stale end's value
            side = 1;
        }
        else
        {
            x0 = x;
            f0 = fx;
            f1 = side == -1 ? 0.5 * f1 : f1;
            side = -1;
        }
        double width = x1 - x0;
        slow = width > 0.5 * lastWidth ? slow + 1 : 0;
        if (slow > 2)
        {
            slow = 0;
        }
        lastWidth = width;
    }
    return x1;
}

// Real roots of the polynomial k (degree n <= 4, leading coefficient possibly zero) in [lo, hi], ascending, by
// isolation: the roots of the derivative split [lo, hi] into monotone pieces, each holding at most one root, found
// by bisection (a fixed number of halvings, so it always ends). A piece whose end touches zero within tol counts
// (a double root where the curve only touches). Returns how many.
static int PolyRoots(const double* k, int n, double lo, double hi, double tol, double* roots)
{
    while (n > 0 && k[n] == 0.0)
    {
        --n;
    }
    if (n == 0)
    {
        return 0; // a constant: no isolated roots (the callers treat identically zero cases themselves)
    }
    double breaks[6];
    int nb = 0;
    breaks[nb++] = lo;
    if (n >= 2)
    {
        double dk[4];
        for (int i = 1; i <= n; ++i)
        {
            dk[i - 1] = i * k[i];
        }
        double crit[4];
        int nc = PolyRoots(dk, n - 1, lo, hi, 0.0, crit);
        for (int i = 0; i < nc; ++i)
        {
            if (crit[i] > breaks[nb - 1] && crit[i] < hi)
            {
                breaks[nb++] = crit[i];
            }
        }
    }
    breaks[nb++] = hi;
    int count = 0;
    for (int i = 0; i + 1 < nb; ++i)
    {
        double x0 = breaks[i], x1 = breaks[i + 1];
        double f0 = Poly(k, n, x0), f1 = Poly(k, n, x1);
        if (fabs(f0) <= tol)
        {
            if (count == 0 || roots[count - 1] != x0)
            {
                roots[count++] = x0;
            }
            continue;
        }
        if (fabs(f1) <= tol)
        {
            continue; // reported as the start of the next piece (or at hi below)
        }
        if ((f0 < 0.0) == (f1 < 0.0))
        {
            continue;
        }
        roots[count++] = BracketedRoot(k, n, x0, x1, f0, f1);
    }
    if (fabs(Poly(k, n, hi)) <= tol && (count == 0 || roots[count - 1] != hi))
    {
        roots[count++] = hi;
    }
    return count;
}

bool lsTimeOfImpactCircleMovingSegment(lsVec2 c0, lsVec2 c1, double radius, lsVec2 p0, lsVec2 p1, lsVec2 q0, lsVec2 q1,
                                       double* t)
{
    LS_ASSERT(lsIsValidVec2(c0) && lsIsValidVec2(c1) && lsIsValidVec2(p0) && lsIsValidVec2(p1));
    LS_ASSERT(lsIsValidVec2(q0) && lsIsValidVec2(q1) && radius >= 0.0 && t != NULL);
    if (!SweptBoxesOverlap(c0, c1, radius, lsAABB_Union(lsAABB_OfSegment(p0, p1), lsAABB_OfSegment(q0, q1))))
    {
        return false;
    }
    lsSegment first = {p0, q0};
    lsCircle start = {c0, radius};
    if (lsSegmentOverlapsCircle(&first, &start))
    {
        *t = 0.0;
        return true;
    }
    // Relative to p: z(t) = a + t b runs from p to the centre, w(t) = c + t d from p to q.
    lsVec2 a = lsSub(c0, p0), b = lsSub(lsSub(c1, c0), lsSub(p1, p0));
    lsVec2 c = lsSub(q0, p0), d = lsSub(lsSub(q1, q0), lsSub(p1, p0));
    double best = 2.0, tc;
    // Endpoint caps: the centre relative to each endpoint moves linearly, a quadratic each.
    if (FirstCapContact(a, b, radius, &tc))
    {
        best = lsFmin(best, tc);
    }
    lsVec2 aq = lsSub(c0, q0), bq = lsSub(lsSub(c1, c0), lsSub(q1, q0));
    if (FirstCapContact(aq, bq, radius, &tc))
    {
        best = lsFmin(best, tc);
    }
    // Interior: F(t) = cross(w, z)^2 - r^2 |w|^2 = 0 with the projection of z on w inside [0, |w|^2]. Every contact
    // time is a cap root or such a root, and every such root is a contact, so the first contact is the least.
    double k0 = lsCross(c, a), k1 = lsCross(c, b) + lsCross(d, a), k2 = lsCross(d, b);
    double w0 = lsDot(c, c), w1 = 2.0 * lsDot(c, d), w2 = lsDot(d, d);
    double rr = radius * radius;
    double f[5] = {k0 * k0 - rr * w0, 2.0 * k0 * k1 - rr * w1, k1 * k1 + 2.0 * k0 * k2 - rr * w2, 2.0 * k1 * k2,
                   k2 * k2};
    double mag = fabs(f[0]) + fabs(f[1]) + fabs(f[2]) + fabs(f[3]) + fabs(f[4]);
    if (isfinite(mag) && mag > 0.0)
    {
        double roots[8];
        int n = PolyRoots(f, 4, 0.0, lsFmin(best, 1.0), 64.0 * s_eps * mag, roots);
        for (int i = 0; i < n; ++i)
        {
            double ti = roots[i];
            lsVec2 z = lsMulAdd(a, ti, b), w = lsMulAdd(c, ti, d);
            double zw = lsDot(z, w), ww = lsDot(w, w);
            if (ww > 0.0 && zw >= 0.0 && zw <= ww)
            {
                best = lsFmin(best, ti);
                break;
            }
        }
    }
    if (best > 1.0)
    {
        return false;
    }
    *t = best;
    return true;
}
