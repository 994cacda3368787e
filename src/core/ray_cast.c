// Ray casts against segments, circles, boxes and polygons (geometry.h). Whether a ray or segment meets a shape is
// decided with exact signs (exact.h: a floating-point filter, exact arithmetic when it cannot decide); only the
// reported fraction, point and normal are rounded, and they are clamped into the range the exact test proved.
#include "lidarsim/geometry.h"

#include "core/exact.h"
#include "core/geometry_internal.h"
#include "lidarsim/base.h"

#include <float.h>
#include <math.h>

// Quad precision where the compiler has it (GCC and clang on x86-64), else long double (IEEE quad on aarch64, the x87
// format's 64 bits and wide exponent on others): for crossings whose products underflow in doubles.
#if defined(__SIZEOF_FLOAT128__)
__extension__ typedef __float128 lsQuad;
#else
typedef long double lsQuad;
#endif

static inline lsCastOutput NoHit(void)
{
    lsCastOutput out = {{0.0, 0.0}, {0.0, 0.0}, 0.0, false};
    return out;
}

static inline void CheckRay(const lsRayInput* input)
{
    LS_ASSERT(lsIsValidVec2(input->origin) && lsIsValidVec2(input->direction) && !isnan(input->maxFraction));
}

// Sign of p - o - l d (exact).
static int SignOfDiffMinusProduct(double p, double o, double l, double d)
{
    double diff = p - o;
    double prod = l * d;
    double v = diff - prod;
    // |error| <= eps |diff| + eps |prod| + eps |v| <= 3 eps (|diff| + |prod|)
    double bound = 0x1p-51 * (fabs(diff) + fabs(prod));
    if (fabs(v) > bound && bound >= LS_FILTER_TINY && isfinite(bound))
    {
        return v > 0.0 ? 1 : -1;
    }
    lsExactTerm terms[3] = {{{p}, 1}, {{-o}, 1}, {{-l, d}, 2}};
    return lsExactSign(terms, 3);
}

// ---------------------------------------------------------------------------------------------------------------------
// Ray casts

// lsOrientDir with its floating-point filter inlined (the common case in the lidar's per-beam loop); the same
// bound as exact.c, so the answer is the exact sign either way.
static inline int SideOfRay(lsVec2 o, lsVec2 d, lsVec2 p)
{
    double left = d.x * (p.y - o.y);
    double right = d.y * (p.x - o.x);
    double det = left - right;
    double bound = LS_FILTER_ORIENT * (fabs(left) + fabs(right));
    if (fabs(det) > bound && bound >= LS_FILTER_TINY && bound <= DBL_MAX)
    {
        return det > 0.0 ? 1 : -1;
    }
    return lsOrientDir(o, d, p);
}

// Parameter of a point known to lie exactly on the ray's line, from the dominant axis of d (one subtraction and
// one division, so points shared by two shapes get bit-identical fractions).
static inline double LineParameter(lsVec2 o, lsVec2 d, lsVec2 p)
{
    return fabs(d.x) >= fabs(d.y) ? (p.x - o.x) / d.x : (p.y - o.y) / d.y;
}

// For a point p exactly on the ray's line: the exact sign of its parameter.
static inline int LineParameterSign(lsVec2 o, lsVec2 d, lsVec2 p)
{
    bool useX = fabs(d.x) >= fabs(d.y);
    double pk = useX ? p.x : p.y, ok = useX ? o.x : o.y, dk = useX ? d.x : d.y;
    int s = pk > ok ? 1 : (pk < ok ? -1 : 0);
    return dk > 0.0 ? s : -s;
}

// For a point p exactly on the ray's line: true when its parameter is in [0, L] (exact).
static bool OnLineWithinRange(lsVec2 o, lsVec2 d, double L, lsVec2 p)
{
    bool useX = fabs(d.x) >= fabs(d.y);
    double pk = useX ? p.x : p.y, ok = useX ? o.x : o.y, dk = useX ? d.x : d.y;
    if (dk > 0.0)
    {
        return pk >= ok && SignOfDiffMinusProduct(pk, ok, L, dk) <= 0;
    }
    return pk <= ok && SignOfDiffMinusProduct(pk, ok, L, dk) >= 0;
}

// Segment a-b lying on the ray's line (both side signs zero; a may equal b).
static lsCastOutput CastCollinear(lsVec2 o, lsVec2 d, double L, lsVec2 a, lsVec2 b)
{
    bool useX = fabs(d.x) >= fabs(d.y);
    double ak = useX ? a.x : a.y, bk = useX ? b.x : b.y, ok = useX ? o.x : o.y, dk = useX ? d.x : d.y;
    lsCastOutput out = NoHit();
    if (lsFmin(ak, bk) <= ok && ok <= lsFmax(ak, bk))
    {
        out.hit = true;
        out.point = o;
        out.fraction = 0.0;
        out.normal = lsNeg(lsUnitVector(d));
        return out;
    }
    // The origin is off the segment: the nearer endpoint is the one with the smaller coordinate along d.
    lsVec2 p = (dk > 0.0) == (ak < bk) ? a : b;
    if (!OnLineWithinRange(o, d, L, p))
    {
        return out;
    }
    out.hit = true;
    out.point = p;
    out.fraction = lsClampFraction(LineParameter(o, d, p), L);
    out.normal = lsNeg(lsUnitVector(d));
    return out;
}

// Unit normal of segment a-b facing a ray that crosses it with cross(d, b - a) of sign denSign (dot(n, d) < 0).
static inline lsVec2 SegmentNormal(lsVec2 a, lsVec2 b, int denSign)
{
    lsVec2 e = lsDirectionOf(a, b);
    return lsUnitVectorInline(denSign > 0 ? lsLeftPerp(e) : lsRightPerp(e)); // lsUnitVector inline: every hit needs it
}

// The crossing of the ray's line with segment a-b is at t = num / den with num = cross(p - o, b - a) (p = a or b)
// and den = cross(d, b - a): returns den and sets *num, each to about eps relative accuracy. sNum and sDen are the
// sizes of their two products. Double-double leaves an error of about 2^-103 of them, more than an ulp where one
// cancels below 2^-48 of its products (an origin within 2^-48 of the wall's size from its line: a robot rounded onto
// a wall of 100 km coordinates lay 10^-28 m off it, and its fraction came out 0; a beam within 2^-48 rad of
// parallel): that one is then summed exactly.
static double AccurateCrossingTerms(lsVec2 o, lsVec2 d, lsVec2 a, lsVec2 b, lsVec2 p, double sNum, double sDen,
                                    double* num)
{
    lsDD ex = lsDiffDD(b.x, a.x), ey = lsDiffDD(b.y, a.y);
    lsDD px = lsDiffDD(p.x, o.x), py = lsDiffDD(p.y, o.y);
    lsDD dx = {d.x, 0.0}, dy = {d.y, 0.0};
    double n = lsCrossDD(px, py, ex, ey);
    double den = lsCrossDD(dx, dy, ex, ey);
    if (!(fabs(n) >= 0x1p-48 * sNum))
    {
        n = lsCrossExactDD(px, py, ex, ey);
    }
    if (!(fabs(den) >= 0x1p-48 * sDen))
    {
        den = lsCrossExactDD(dx, dy, ex, ey);
    }
    *num = n;
    return den;
}

// The ray's line crosses segment a-b in one point: the sides sa, sb of a and b (exact signs of cross(d, x - o))
// differ and are not both zero. Returns the exact sign of the crossing's ray parameter t, and fills *out with the
// hit when 0 <= t <= L (else leaves it a miss). The shared body of lsRayCastSegment and lsRayCastPolygon.
static int CastCrossing(lsVec2 o, lsVec2 d, double L, lsVec2 a, lsVec2 b, int sa, int sb, lsCastOutput* out)
{
    // den = cross(d, b - a) = cross(d, b - o) - cross(d, a - o) is a difference of terms with signs sb and sa, so
    // its sign is exactly sign(sb - sa).
    int denSign = sb > sa ? 1 : -1;
    *out = NoHit();
    if (sa == 0 || sb == 0)
    {
        // An endpoint lies exactly on the line: that endpoint is the crossing (the shared corner of two walls).
        lsVec2 p = sa == 0 ? a : b;
        int tSign = LineParameterSign(o, d, p);
        if (tSign < 0 || !OnLineWithinRange(o, d, L, p))
        {
            return tSign;
        }
        out->hit = true;
        out->point = p;
        out->fraction = lsClampFraction(LineParameter(o, d, p), L);
        out->normal = SegmentNormal(a, b, denSign);
        return tSign;
    }

    // Interior crossing at t = num / den, num = cross(p - o, b - a) for either endpoint p (the nearer one rounds
    // less). Every product below is of rounded differences, so Shewchuk's bound (3 eps + 16 eps^2) applies.
    lsVec2 p = fabs(a.x - o.x) + fabs(a.y - o.y) <= fabs(b.x - o.x) + fabs(b.y - o.y) ? a : b;
    double px = p.x - o.x, py = p.y - o.y;
    double ex = b.x - a.x, ey = b.y - a.y;
    double n1 = px * ey, n2 = py * ex;
    double num = n1 - n2;
    double sNum = fabs(n1) + fabs(n2);
    double numBound = LS_FILTER_BOUND8 * sNum;
    int numSign;
    if (fabs(num) > numBound && numBound >= LS_FILTER_TINY && sNum <= DBL_MAX)
    {
        numSign = num > 0.0 ? 1 : -1;
    }
    else
    {
        numSign = lsOrient(o, a, b); // cross(a - o, b - a) = cross(a - o, b - o)
    }
    int tSign = numSign * denSign;
    if (tSign < 0)
    {
        return tSign; // behind the origin
    }

    // Range: t <= L  <=>  denSign (L den - num) >= 0. |error| <= (c + 2 eps) L sDen + (c + eps) sNum < 6 eps (...).
    double d1 = d.x * ey, d2 = d.y * ex;
    double den = d1 - d2;
    double sDen = fabs(d1) + fabs(d2);
    double lden = L * den;
    double range = lden - num;
    double rangeBound = LS_FILTER_BOUND8 * (L * sDen + sNum);
    int rangeSign;
    if (fabs(range) > rangeBound && rangeBound >= LS_FILTER_TINY && rangeBound <= DBL_MAX)
    {
        rangeSign = range > 0.0 ? 1 : -1;
    }
    else
    {
        // L den - num, den = dx by - dx ay - dy bx + dy ax, num = ax by - ax oy - ox by - ay bx + ay ox + oy bx
        lsExactTerm terms[10] = {
            {{L, d.x, b.y}, 3}, {{-L, d.x, a.y}, 3}, {{-L, d.y, b.x}, 3}, {{L, d.y, a.x}, 3}, {{-a.x, b.y}, 2},
            {{a.x, o.y}, 2},    {{o.x, b.y}, 2},     {{a.y, b.x}, 2},     {{-a.y, o.x}, 2},   {{-o.y, b.x}, 2},
        };
        rangeSign = lsExactSign(terms, 10);
    }
    if (rangeSign * denSign < 0)
    {
        return tSign; // beyond maxFraction
    }

    double t = num / den;
    if (!(LS_FILTER_BOUND8 * sNum >= LS_FILTER_TINY))
    {
        // Products this small lose their digits to underflow (a wall of 1e-300 m seen from 2e-300 m came back at
        // range 0, one of 1e-160 m 1e-5 too short): num and den again in quad precision, whose exponent reaches far
        // below a double's and whose 113 bits hold each difference and product of these doubles exactly or nearly,
        // so a grazing beam keeps its digits too. The common case leaves every such crossing here (its numerator's
        // filter needs sNum).
        lsQuad qex = (lsQuad)b.x - (lsQuad)a.x, qey = (lsQuad)b.y - (lsQuad)a.y;
        lsQuad qpx = (lsQuad)p.x - (lsQuad)o.x, qpy = (lsQuad)p.y - (lsQuad)o.y;
        lsQuad tinyNum = qpx * qey - qpy * qex;
        lsQuad tinyDen = (lsQuad)d.x * qey - (lsQuad)d.y * qex;
        t = (double)(tinyNum / tinyDen);
    }
    else if ((sDen > LS_CROSSING_ILL * fabs(den) || sNum > LS_CROSSING_ILL * fabs(num)) && isfinite(sDen) &&
             isfinite(sNum))
    {
        // Ill-conditioned (a grazing beam, or an origin close to the segment's line): the rounding of b - a, p - o
        // and of the products would cost up to eps sDen / |den| of relative accuracy, so recompute both in
        // double-double arithmetic.
        den = AccurateCrossingTerms(o, d, a, b, p, sNum, sDen, &num);
        t = num / den;
    }
    if (!(den * denSign > 0.0) || !isfinite(t))
    {
        // Nearly parallel (the rounded den lost its sign) or overflow: recompute in extended precision from the
        // side distances of the endpoints, whose signs are known, so the weight s stays in [0, 1].
        long double ca = (long double)d.x * ((long double)a.y - (long double)o.y) -
                         (long double)d.y * ((long double)a.x - (long double)o.x);
        long double cb = (long double)d.x * ((long double)b.y - (long double)o.y) -
                         (long double)d.y * ((long double)b.x - (long double)o.x);
        ca = (ca > 0) == (sa > 0) ? ca : 0.0L;
        cb = (cb > 0) == (sb > 0) ? cb : 0.0L;
        long double s = ca != cb ? ca / (ca - cb) : 0.5L;
        long double dd = (long double)d.x * (long double)d.x + (long double)d.y * (long double)d.y;
        long double ta = ((long double)d.x * ((long double)a.x - (long double)o.x) +
                          (long double)d.y * ((long double)a.y - (long double)o.y));
        long double tb = ((long double)d.x * ((long double)b.x - (long double)o.x) +
                          (long double)d.y * ((long double)b.y - (long double)o.y));
        t = (double)((ta + s * (tb - ta)) / dd);
    }
    out->hit = true;
    out->fraction = lsClampFraction(t, L);
    out->point = lsClampToSegmentBox(lsMulAdd(o, out->fraction, d), a, b);
    out->normal = SegmentNormal(a, b, denSign);
    return tSign;
}

// Ray against segment a-b given the exact sides sa, sb of a and b relative to the ray's line.
static lsCastOutput CastSegmentWithSides(lsVec2 o, lsVec2 d, double L, lsVec2 a, lsVec2 b, int sa, int sb)
{
    if (sa == sb)
    {
        return sa != 0 ? NoHit() : CastCollinear(o, d, L, a, b);
    }
    lsCastOutput out;
    CastCrossing(o, d, L, a, b, sa, sb, &out);
    return out;
}

lsCastOutput lsRayCastSegment(const lsSegment* segment, const lsRayInput* input)
{
    CheckRay(input);
    lsVec2 o = input->origin, d = input->direction;
    double L = lsFmin(input->maxFraction, DBL_MAX); // an infinite range is the largest finite one
    if (!(L >= 0.0) || (d.x == 0.0 && d.y == 0.0))
    {
        return NoHit();
    }
    lsCastOutput common;
    if (lsRayCastSegmentCommon(o, d, L, segment->a, segment->b, &common))
    {
        return common; // every filter decided: the same bits as lsRayCastSegmentFull gives
    }
    return lsRayCastSegmentFull(segment, input);
}

lsCastOutput lsRayCastSegmentFull(const lsSegment* segment, const lsRayInput* input)
{
    CheckRay(input);
    lsVec2 o = input->origin, d = input->direction;
    double L = lsFmin(input->maxFraction, DBL_MAX);
    if (!(L >= 0.0) || (d.x == 0.0 && d.y == 0.0))
    {
        return NoHit();
    }
    int sa = SideOfRay(o, d, segment->a);
    int sb = SideOfRay(o, d, segment->b);
    if (sa == sb && sa != 0)
    {
        return NoHit();
    }
    return CastSegmentWithSides(o, d, L, segment->a, segment->b, sa, sb);
}

// C = |o - c|^2 - r^2 and disc = r^2 |d|^2 - cross(d, o - c)^2 in double-double, rounded to double at the end.
static void AccurateCircleTerms(lsVec2 o, lsVec2 d, lsVec2 c, double r, double* C, double* disc)
{
    lsDD fx = lsDiffDD(o.x, c.x), fy = lsDiffDD(o.y, c.y);
    lsDD dx = {d.x, 0.0}, dy = {d.y, 0.0}, rr = lsMulDD((lsDD){r, 0.0}, (lsDD){r, 0.0});
    lsDD ff = lsAddDD(lsMulDD(fx, fx), lsMulDD(fy, fy));
    *C = lsAddDD(ff, lsNegDD(rr)).hi;
    lsDD cr = lsAddDD(lsMulDD(dx, fy), lsNegDD(lsMulDD(dy, fx)));
    lsDD dd = lsAddDD(lsMulDD(dx, dx), lsMulDD(dy, dy));
    *disc = lsAddDD(lsMulDD(rr, dd), lsNegDD(lsMulDD(cr, cr))).hi;
}

// Writes the exact expansion of r^2 |d|^2 - cross(d, o - c)^2 (18 products of 4 doubles); returns the term count.
static int AppendCircleDisc(lsExactTerm* terms, lsVec2 o, lsVec2 d, lsVec2 c, double r)
{
    // cross(d, o - c) = dx oy - dx cy - dy ox + dy cx
    lsExactTerm crTerms[4] = {{{d.x, o.y}, 2}, {{-d.x, c.y}, 2}, {{-d.y, o.x}, 2}, {{d.y, c.x}, 2}};
    lsExactTerm rTerms[2] = {{{r, d.x}, 2}, {{r, d.y}, 2}};
    int n = 0;
    lsExactAppendProduct(terms, &n, rTerms, 1, rTerms, 1, 1.0);
    lsExactAppendProduct(terms, &n, rTerms + 1, 1, rTerms + 1, 1, 1.0);
    lsExactAppendProduct(terms, &n, crTerms, 4, crTerms, 4, -1.0);
    return n;
}

// What both circle casts check first: false (no hit) for a negative or NaN range or a zero direction; L is the range
// with an infinite one taken as the largest finite one.
static bool CircleCastValid(const lsCircle* circle, const lsRayInput* input, double* L)
{
    CheckRay(input);
    LS_ASSERT(circle->radius >= 0.0);
    *L = lsFmin(input->maxFraction, DBL_MAX);
    return *L >= 0.0 && (input->direction.x != 0.0 || input->direction.y != 0.0);
}

lsCastOutput lsRayCastCircle(const lsCircle* circle, const lsRayInput* input)
{
    double L;
    if (!CircleCastValid(circle, input, &L))
    {
        return NoHit();
    }
    lsVec2 o = input->origin, d = input->direction, c = circle->center;
    double r = circle->radius;
    lsCastOutput common;
    if (lsRayCastCircleCommon(o, d, L, c, r, &common))
    {
        if (common.hit)
        {
            lsCompleteCircleHit(o, d, c, r, &common);
        }
        return common; // every filter decided: the same bits as lsRayCastCircleFull gives
    }
    return lsRayCastCircleFull(circle, input);
}

lsCastOutput lsRayCastCircleFull(const lsCircle* circle, const lsRayInput* input)
{
    double L;
    if (!CircleCastValid(circle, input, &L))
    {
        return NoHit();
    }
    lsVec2 o = input->origin, d = input->direction, c = circle->center;
    double r = circle->radius;
    lsCastOutput out = NoHit();
    double fx = o.x - c.x, fy = o.y - c.y;
    double ff = fx * fx + fy * fy, rr = r * r;
    double cSide = ff - rr; // C of the quadratic dd t^2 + 2 fd t + C
    double sideBound = LS_FILTER_BOUND8 * (ff + rr);
    int side;
    if (fabs(cSide) > sideBound && sideBound >= LS_FILTER_TINY && isfinite(sideBound))
    {
        side = cSide > 0.0 ? 1 : -1;
    }
    else
    {
        side = lsCircleSideSign(o, c, r);
    }
    if (side <= 0)
    {
        out.hit = true;
        out.point = o;
        out.normal = lsNeg(lsUnitVector(d));
        return out;
    }

    // Moving towards the centre? fd = dot(d, o - c) < 0 (else the distance only grows).
    double p1 = d.x * fx, p2 = d.y * fy;
    double fd = p1 + p2;
    double fdBound = LS_FILTER_BOUND8 * (fabs(p1) + fabs(p2));
    int fdSign;
    if (fabs(fd) > fdBound && fdBound >= LS_FILTER_TINY && isfinite(fdBound))
    {
        fdSign = fd > 0.0 ? 1 : -1;
    }
    else
    {
        lsExactTerm terms[4] = {{{d.x, o.x}, 2}, {{-d.x, c.x}, 2}, {{d.y, o.y}, 2}, {{-d.y, c.y}, 2}};
        fdSign = lsExactSign(terms, 4);
    }
    if (fdSign >= 0)
    {
        return out;
    }

    // Does the line come within r? disc = fd^2 - dd C = r^2 dd - cross(d, f)^2 (Lagrange), no cancellation of
    // the large fd^2 and dd |f|^2 when the circle is far away.
    double dd = d.x * d.x + d.y * d.y;
    double c1 = d.x * fy, c2 = d.y * fx;
    double cr = c1 - c2;
    double crErr = 0x1p-51 * (fabs(c1) + fabs(c2));
    double rdd = rr * dd;
    double cr2 = cr * cr;
    double disc = rdd - cr2;
    double discBound = LS_FILTER_BOUND8 * (rdd + cr2) + 2.5 * fabs(cr) * crErr + 2.0 * crErr * crErr;
    int discSign;
    if (fabs(disc) > discBound && discBound >= LS_FILTER_TINY && isfinite(discBound))
    {
        discSign = disc > 0.0 ? 1 : -1;
    }
    else
    {
        lsExactTerm terms[LS_EXACT_MAX_TERMS];
        int n = AppendCircleDisc(terms, o, d, c, r);
        discSign = lsExactSign(terms, n);
    }
    if (discSign < 0)
    {
        return out;
    }

    // Range: the near root t1 = (-fd - sqrt(disc)) / dd <= L  <=>  g = -fd - L dd <= sqrt(disc).
    double ldd = L * dd;
    double g = -fd - ldd;
    double gErr = LS_FILTER_BOUND8 * (fabs(p1) + fabs(p2) + ldd);
    int within; // 1: t1 <= L, 0: beyond
    if (g < -gErr && isfinite(gErr))
    {
        within = 1;
    }
    else
    {
        double h = disc - g * g;
        double hBound = discBound + 2.5 * fabs(g) * gErr + 2.0 * gErr * gErr + 0x1p-51 * (fabs(disc) + g * g);
        if (g > gErr && fabs(h) > hBound && hBound >= LS_FILTER_TINY && isfinite(hBound))
        {
            within = h > 0.0;
        }
        else
        {
            // g = -dx ox + dx cx - dy oy + dy cy - L dx dx - L dy dy, exactly.
            lsExactTerm gTerms[6] = {{{-d.x, o.x}, 2}, {{d.x, c.x}, 2},     {{-d.y, o.y}, 2},
                                     {{d.y, c.y}, 2},  {{-L, d.x, d.x}, 3}, {{-L, d.y, d.y}, 3}};
            int gSign = lsExactSign(gTerms, 6);
            if (gSign <= 0)
            {
                within = 1;
            }
            else
            {
                lsExactTerm terms[LS_EXACT_MAX_TERMS];
                int n = AppendCircleDisc(terms, o, d, c, r);
                // disc - g^2: 18 + 36 terms (within LS_EXACT_MAX_TERMS), products of up to 6 factors.
                lsExactAppendProduct(terms, &n, gTerms, 6, gTerms, 6, -1.0);
                within = lsExactSign(terms, n) >= 0;
            }
        }
    }
    if (!within)
    {
        return out;
    }

    // t1 = C / q with q = -fd + sqrt(disc): both terms of q are >= 0, so nothing cancels (stable quadratic formula).
    double q = -fd + sqrt(lsFmax(disc, 0.0));
    double t = cSide / q;
    if ((rdd > LS_CIRCLE_ILL * fabs(disc) || ff > LS_CIRCLE_ILL * fabs(cSide)) && isfinite(rdd + ff))
    {
        // Nearly tangent (disc cancels) or the origin near the circle (C cancels): recompute both in double-double,
        // or exactly where they cancel below 2^-48 of their terms (double-double's 2^-103 would cost more than an ulp
        // there). fd cancels too when the beam runs along the tangent from a point near the circle (d nearly
        // perpendicular to o - c): q = -fd + sqrt(disc) is then about 2 |fd|, so fd is summed exactly (a beam from a
        // robot rounded onto a circle, tipped 1e-12 rad into it, was 1e-4 off).
        double accurateC, accurateDisc;
        AccurateCircleTerms(o, d, c, r, &accurateC, &accurateDisc);
        if (!(fabs(accurateC) >= 0x1p-48 * (ff + rr)))
        {
            lsExactTerm terms[7] = {{{o.x, o.x}, 2},        {{-2.0 * o.x, c.x}, 2}, {{c.x, c.x}, 2}, {{o.y, o.y}, 2},
                                    {{-2.0 * o.y, c.y}, 2}, {{c.y, c.y}, 2},        {{-r, r}, 2}};
            accurateC = lsExactValue(terms, 7);
        }
        if (!(fabs(accurateDisc) >= 0x1p-48 * (rdd + cr2)))
        {
            lsExactTerm terms[LS_EXACT_MAX_TERMS];
            int n = AppendCircleDisc(terms, o, d, c, r);
            accurateDisc = lsExactValue(terms, n);
        }
        double accurateFd = fd;
        const double fx4[4] = {d.x, -d.x, d.y, -d.y}, fy4[4] = {o.x, c.x, o.y, c.y};
        if (!(fabs(fd) >= 0x1p-2 * (fabs(p1) + fabs(p2))) && !lsSumOfProductsExact(fx4, fy4, 4, &accurateFd))
        {
            accurateFd = fd;
        }
        q = -accurateFd + sqrt(lsFmax(accurateDisc, 0.0));
        t = lsFmax(accurateC, 0.0) / q;
    }
    if (!isfinite(t) || !(q > 0.0))
    {
        long double lfx = (long double)o.x - (long double)c.x, lfy = (long double)o.y - (long double)c.y;
        long double lfd = (long double)d.x * lfx + (long double)d.y * lfy;
        long double lcr = (long double)d.x * lfy - (long double)d.y * lfx;
        long double ldisc = (long double)r * (long double)r *
                                ((long double)d.x * (long double)d.x + (long double)d.y * (long double)d.y) -
                            lcr * lcr;
        long double lq = -lfd + sqrtl(ldisc > 0 ? ldisc : 0.0L);
        long double lc = lfx * lfx + lfy * lfy - (long double)r * (long double)r;
        t = lq > 0 ? (double)(lc / lq) : 0.0;
    }
    out.hit = true;
    out.fraction = lsClampFraction(t, L);
    lsCompleteCircleHit(o, d, c, r, &out);
    return out;
}

// A box is the set of points p with |u_k . (p - c)| <= h_k for its frame's axes u_0 = (rot.c, rot.s) and u_1 =
// (-rot.s, rot.c) as doubles (lsInvRotate's rows). Along the ray, u_k . (o + t d - c) = a_k + t b_k. The terms below
// are the exact polynomials in the given doubles that the decisions take the signs of.

// The box frame's axis k.
static inline lsVec2 BoxAxis(const lsBox* box, int k)
{
    return k == 0 ? lsV(box->rot.c, box->rot.s) : lsV(-box->rot.s, box->rot.c);
}

// Terms of g h_k - a_k (g = +1 or -1): the origin is on the inner side of face g of axis k when g times it is >= 0.
static void BoxSlabTerms(const lsBox* box, int k, double g, lsVec2 o, lsExactTerm* t)
{
    lsVec2 u = BoxAxis(box, k), c = box->center;
    double h = k == 0 ? box->halfSize.x : box->halfSize.y;
    t[0] = (lsExactTerm){{g, h}, 2};
    t[1] = (lsExactTerm){{-u.x, o.x}, 2};
    t[2] = (lsExactTerm){{u.x, c.x}, 2};
    t[3] = (lsExactTerm){{-u.y, o.y}, 2};
    t[4] = (lsExactTerm){{u.y, c.y}, 2};
}

// Terms of b_k = u_k . d.
static void BoxDirectionTerms(const lsBox* box, int k, lsVec2 d, lsExactTerm* t)
{
    lsVec2 u = BoxAxis(box, k);
    t[0] = (lsExactTerm){{u.x, d.x}, 2};
    t[1] = (lsExactTerm){{u.y, d.y}, 2};
}

// The ray parameter (g h_k - a_k) / b_k at which the ray crosses the line of face g of axis k, each sum of products
// summed exactly and rounded once (so to about eps, however the beam grazes the face or the origin nears it);
// fallback when a factor is out of lsSumOfProductsExact's range.
static double BoxFaceParameter(const lsBox* box, int k, double g, lsVec2 o, lsVec2 d, double fallback)
{
    lsVec2 u = BoxAxis(box, k), c = box->center;
    double h = k == 0 ? box->halfSize.x : box->halfSize.y;
    const double nx[5] = {g, -u.x, u.x, -u.y, u.y}, ny[5] = {h, o.x, c.x, o.y, c.y};
    const double dx[2] = {u.x, u.y}, dy[2] = {d.x, d.y};
    double num, den;
    if (!lsSumOfProductsExact(nx, ny, 5, &num) || !lsSumOfProductsExact(dx, dy, 2, &den) || !(den != 0.0))
    {
        return fallback;
    }
    double t = num / den;
    return isfinite(t) ? t : fallback;
}

// The hit of a box for a ray whose rounded box-frame values leave a decision open (an origin on or a hair from a
// face, a beam along a face or through a corner): every decision an exact sign. The origin inside or on the boundary
// hits at 0; otherwise the entry is the crossing of an entering face's line (g = -sign(b_k)) at 0 <= t <= L whose
// point lies in the other slab (closed), at most one point but at a corner, where axis 0 is taken as the slab method
// takes it.
static lsCastOutput RayCastBoxExact(const lsBox* box, const lsRayInput* input, double L, int* entryAxis,
                                    double* entrySign)
{
    lsVec2 o = input->origin, d = input->direction;
    lsExactTerm in[2][2][5], dir[2][2]; // in[k][g > 0]: g h_k - a_k; dir[k]: b_k
    int inside = 1, dirSign[2];
    for (int k = 0; k < 2; ++k)
    {
        BoxSlabTerms(box, k, 1.0, o, in[k][1]);
        BoxSlabTerms(box, k, -1.0, o, in[k][0]);
        BoxDirectionTerms(box, k, d, dir[k]);
        dirSign[k] = lsExactSign(dir[k], 2);
        inside = inside && lsExactSign(in[k][1], 5) >= 0 && lsExactSign(in[k][0], 5) <= 0;
    }
    *entryAxis = -1;
    *entrySign = 0.0;
    if (inside)
    {
        return (lsCastOutput){o, lsNeg(lsUnitVector(d)), 0.0, true};
    }
    for (int k = 0; k < 2; ++k)
    {
        int s = dirSign[k], j = 1 - k;
        if (s == 0)
        {
            continue; // parallel to axis k's faces: no crossing
        }
        double g = s > 0 ? -1.0 : 1.0;
        const lsExactTerm* a = in[k][g > 0.0];
        // Ahead of the origin (t >= 0) and within range (L b_k - (g h_k - a_k) has the sign of b_k or is 0).
        if (lsExactSign(a, 5) * s < 0)
        {
            continue;
        }
        lsExactTerm terms[LS_EXACT_MAX_TERMS];
        for (int i = 0; i < 5; ++i)
        {
            terms[i] = a[i];
            terms[i].f[0] = -terms[i].f[0];
        }
        terms[5] = (lsExactTerm){{L, dir[k][0].f[0], dir[k][0].f[1]}, 3};
        terms[6] = (lsExactTerm){{L, dir[k][1].f[0], dir[k][1].f[1]}, 3};
        if (lsExactSign(terms, 7) * s < 0)
        {
            continue;
        }
        // The crossing in slab j: h_j - a_j - t b_j >= 0 and -h_j - a_j - t b_j <= 0 at t = (g h_k - a_k) / b_k,
        // times b_k: b_k (g' h_j - a_j) - (g h_k - a_k) b_j, of the sign of b_k (upper) or its opposite (lower) or 0.
        bool within = true;
        for (int upper = 1; upper >= 0 && within; --upper)
        {
            int count = 0;
            lsExactAppendProduct(terms, &count, dir[k], 2, in[j][upper], 5, 1.0);
            lsExactAppendProduct(terms, &count, a, 5, dir[j], 2, -1.0);
            int side = lsExactSign(terms, count) * s;
            within = upper ? side >= 0 : side <= 0;
        }
        if (!within)
        {
            continue;
        }
        *entryAxis = k;
        *entrySign = g;
        lsCastOutput out = NoHit();
        out.hit = true;
        return out;
    }
    return NoHit();
}

lsCastOutput lsRayCastBox(const lsBox* box, const lsRayInput* input)
{
    CheckRay(input);
    lsVec2 d = input->direction;
    double L = lsFmin(input->maxFraction, DBL_MAX); // an infinite range is the largest finite one
    if (!(L >= 0.0) || (d.x == 0.0 && d.y == 0.0))
    {
        return NoHit();
    }
    // Slab method in the box frame; closed slabs, so a ray along a face hits at its entry onto the face. The frame's
    // rounded values o and ld are within 8 eps of |o - c| and |d| (a rounded difference, two products, a sum) of the
    // exact ones. Where every face's line lies further than 2^20 times that from the origin (far) and the direction's
    // components exceed 2^20 times theirs (steep), each t's sign is exact and its value within 2^-19 of the exact one,
    // so a comparison between two of them (or L) that clears 2^-18 of their size is exact too. The rest (an origin on
    // or near a face's line, a beam along a face or through a corner) RayCastBoxExact decides.
    lsVec2 f = lsSub(input->origin, box->center);
    lsVec2 o = lsInvRotate(box->rot, f);
    lsVec2 ld = lsInvRotate(box->rot, d);
    // 2^20 times the bounds (2^-30 = 2^20 8 eps).
    double far = 0x1p-30 * (fabs(f.x) + fabs(f.y)), steep = 0x1p-30 * (fabs(d.x) + fabs(d.y));
    double h[2] = {box->halfSize.x, box->halfSize.y};
    double oc[2] = {o.x, o.y}, dc[2] = {ld.x, ld.y};
    double tMin = 0.0, tMax = L, entries[2] = {0.0, 0.0};
    int entryAxis = -1;
    double entrySign = 0.0;
    bool open = !(far <= DBL_MAX);
    for (int k = 0; k < 2 && !open; ++k)
    {
        // min(|n1|, |n2|) is ||oc| - h|: the origin's distance to the nearer face line of the axis.
        if (!(fabs(dc[k]) > steep && fabs(fabs(oc[k]) - h[k]) > far))
        {
            open = true;
            break;
        }
        double n1 = -h[k] - oc[k], n2 = h[k] - oc[k];
        double inv = 1.0 / dc[k];
        double t1 = n1 * inv;
        double t2 = n2 * inv;
        double sign = -1.0; // entering through the -h face
        if (t1 > t2)
        {
            double tmp = t1;
            t1 = t2;
            t2 = tmp;
            sign = 1.0;
        }
        entries[k] = t1;
        if (t1 > tMin)
        {
            tMin = t1;
            entryAxis = k;
            entrySign = sign;
        }
        tMax = lsFmin(tMax, t2);
        if (tMin > tMax)
        {
            if (tMin - tMax > 0x1p-18 * (tMin + tMax))
            {
                return NoHit();
            }
            open = true;
        }
    }
    // A hit's entry: clear of the exit (else through a corner or at the range's end) and of the other axis' entry
    // (else at a corner, where the face decides the fraction and the normal).
    open =
        open || (entryAxis >= 0 && !(tMax - tMin > 0x1p-18 * (tMin + tMax) &&
                                     fabs(entries[0] - entries[1]) > 0x1p-18 * (tMin + fabs(entries[1 - entryAxis]))));
    lsCastOutput out = NoHit();
    if (open)
    {
        out = RayCastBoxExact(box, input, L, &entryAxis, &entrySign);
        if (!out.hit || entryAxis < 0)
        {
            return out;
        }
        double rounded = (entrySign * h[entryAxis] - oc[entryAxis]) / dc[entryAxis];
        out.fraction = lsClampFraction(BoxFaceParameter(box, entryAxis, entrySign, input->origin, d, rounded), L);
    }
    else
    {
        out.hit = true;
        if (entryAxis >= 0 &&
            (far > 0x1p-24 * fabs(entrySign * h[entryAxis] - oc[entryAxis]) || steep > 0x1p-24 * fabs(dc[entryAxis])))
        {
            // The entry's fraction to about eps where the frame's rounding may cost more than 2^6 ulps (a beam
            // within about 1/64 rad of the face, an origin near its line); elsewhere it stays within about 2^-43.
            tMin = BoxFaceParameter(box, entryAxis, entrySign, input->origin, d, tMin);
        }
        out.fraction = lsClampFraction(tMin, L);
    }
    out.point = lsMulAdd(input->origin, out.fraction, d);
    if (entryAxis < 0)
    {
        out.normal = lsNeg(lsUnitVector(d)); // origin inside or on the boundary
    }
    else
    {
        lsVec2 localNormal = entryAxis == 0 ? lsV(entrySign, 0.0) : lsV(0.0, entrySign);
        out.normal = lsRotate(box->rot, localNormal);
    }
    if (!lsIsValidVec2(out.point))
    {
        lsAABB b = lsBox_Bounds(box);
        out.point = (lsVec2){lsClamp(out.point.x, b.lower.x, b.upper.x), lsClamp(out.point.y, b.lower.y, b.upper.y)};
    }
    return out;
}

lsCastOutput lsRayCastPolygon(const lsPolygon* polygon, const lsRayInput* input)
{
    CheckRay(input);
    int n = polygon->count;
    LS_ASSERT(n >= 3 && n <= LS_MAX_POLYGON_VERTICES);
    lsVec2 o = input->origin, d = input->direction;
    double L = lsFmin(input->maxFraction, DBL_MAX); // an infinite range is the largest finite one
    if (!(L >= 0.0) || (d.x == 0.0 && d.y == 0.0))
    {
        return NoHit();
    }
    // The closed solid is met iff its boundary is met or the origin is inside, so the first entry is the nearest
    // edge hit, each edge decided exactly like a wall (a ray through a vertex always hits).
    int side[LS_MAX_POLYGON_VERTICES];
    int positive = 0, negative = 0;
    for (int i = 0; i < n; ++i)
    {
        side[i] = SideOfRay(o, d, polygon->vertices[i]);
        positive += side[i] > 0;
        negative += side[i] < 0;
    }
    if (positive == n || negative == n)
    {
        return NoHit(); // the whole polygon is strictly on one side of the ray's line
    }
    // The line meets the convex polygon in one chord; its ends are the crossings of the edges whose ends lie on
    // different sides (an edge along the line contributes its ends through its neighbours). With the exact signs of
    // the crossings' parameters: one at 0, or some behind and some ahead, means the origin is inside or on the
    // boundary; all ahead, the nearest within range is the entry.
    bool behind = false, ahead = false, atOrigin = false;
    lsCastOutput best = NoHit();
    double bestDot = 0.0;
    for (int i = 0; i < n; ++i)
    {
        int j = i + 1 < n ? i + 1 : 0;
        if (side[i] == side[j])
        {
            continue;
        }
        lsCastOutput hit;
        int tSign = CastCrossing(o, d, L, polygon->vertices[i], polygon->vertices[j], side[i], side[j], &hit);
        behind = behind || tSign < 0;
        ahead = ahead || tSign > 0;
        atOrigin = atOrigin || tSign == 0;
        if (!hit.hit)
        {
            continue;
        }
        // The outward normal is the entry normal; at a vertex (a tie) prefer the edge the ray enters most directly.
        double dot = lsDot(polygon->normals[i], d);
        if (!best.hit || hit.fraction < best.fraction || (hit.fraction == best.fraction && dot < bestDot))
        {
            best = hit;
            best.normal = dot <= 0.0 ? polygon->normals[i] : hit.normal;
            bestDot = dot;
        }
    }
    if (atOrigin || (behind && ahead))
    {
        lsCastOutput out = NoHit();
        out.hit = true;
        out.point = o;
        out.normal = lsNeg(lsUnitVector(d));
        return out;
    }
    return best;
}
