// Segment tests and closest points (geometry.h): where two segments meet, whether a segment touches a circle, box or
// polygon (exact signs, as the ray casts), and the closest point of a segment or polyline.
#include "lidarsim/geometry.h"

#include "core/exact.h"
#include "core/geometry_internal.h"
#include "lidarsim/base.h"

#include <float.h>
#include <math.h>

// ---------------------------------------------------------------------------------------------------------------------
// Segment tests

// Parameter of p (known to lie exactly on the line of a-b, a != b) along a-b, from the dominant axis; 0 at a, 1 at b.
static inline double SegmentParameter(lsVec2 a, lsVec2 b, lsVec2 p)
{
    if (lsVecEqual(p, a))
    {
        return 0.0;
    }
    if (lsVecEqual(p, b))
    {
        return 1.0;
    }
    double ex = b.x - a.x, ey = b.y - a.y;
    double s = fabs(ex) >= fabs(ey) ? (p.x - a.x) / ex : (p.y - a.y) / ey;
    return lsClamp(s, 0.0, 1.0);
}

// Parameter of p on segment a-b by projection, clamped to [0, 1]; a zero-length segment gives 0.
static double ProjectParameter(lsVec2 a, lsVec2 b, lsVec2 p)
{
    if (lsVecEqual(a, b))
    {
        return 0.0;
    }
    lsVec2 e = lsSub(b, a), f = lsSub(p, a);
    if (!lsIsValidVec2(e) || !lsIsValidVec2(f))
    {
        // Halve everything (only the ratio matters) when a difference overflows.
        e = lsSub(lsScale(0.5, b), lsScale(0.5, a));
        f = lsSub(lsScale(0.5, p), lsScale(0.5, a));
    }
    double ee = lsDot(e, e);
    double u = lsDot(f, e) / ee;
    if (!isfinite(u))
    {
        long double lex = (long double)e.x, ley = (long double)e.y;
        long double lee = lex * lex + ley * ley;
        u = lee > 0 ? (double)(((long double)f.x * lex + (long double)f.y * ley) / lee) : 0.0;
    }
    return lsClamp(u, 0.0, 1.0);
}

// Point on a-b at parameter s, with s = 0 and s = 1 giving the endpoints exactly.
static inline lsVec2 PointAt(lsVec2 a, lsVec2 b, double s)
{
    if (s <= 0.0)
    {
        return a;
    }
    if (s >= 1.0)
    {
        return b;
    }
    lsVec2 p = lsLerp(a, b, s);
    return lsClampToSegmentBox(p, a, b);
}

lsSegmentHit lsIntersectSegments(const lsSegment* a, const lsSegment* b)
{
    lsSegmentHit out = {false, false, {0.0, 0.0}, 0.0, 0.0, 0.0};
    lsVec2 a0 = a->a, a1 = a->b, b0 = b->a, b1 = b->b;
    LS_ASSERT(lsIsValidVec2(a0) && lsIsValidVec2(a1) && lsIsValidVec2(b0) && lsIsValidVec2(b1));
    // Rapid rejection: the closed bounding boxes must overlap (exact comparisons).
    if (!lsAABB_Overlaps(lsAABB_OfSegment(a0, a1), lsAABB_OfSegment(b0, b1)))
    {
        return out;
    }
    bool aPoint = lsVecEqual(a0, a1), bPoint = lsVecEqual(b0, b1);
    if (aPoint || bPoint)
    {
        // A point meets a segment when it is on its line (exact) and in its box (given by the overlap above).
        if (aPoint && bPoint)
        {
            out.hit = true; // the boxes overlap, so the points coincide
            out.point = a0;
        }
        else if (aPoint)
        {
            if (lsOrient(b0, b1, a0) != 0)
            {
                return out;
            }
            out.hit = true;
            out.point = a0;
            out.t = SegmentParameter(b0, b1, a0);
        }
        else
        {
            if (lsOrient(a0, a1, b0) != 0)
            {
                return out;
            }
            out.hit = true;
            out.point = b0;
            out.s = SegmentParameter(a0, a1, b0);
        }
        out.sEnd = out.s;
        return out;
    }

    // Straddle test: each segment's endpoints must not lie strictly on one side of the other's line.
    int o1 = lsOrient(a0, a1, b0), o2 = lsOrient(a0, a1, b1);
    if (o1 * o2 > 0)
    {
        return out;
    }
    if (o1 == 0 && o2 == 0)
    {
        // Collinear, with overlapping boxes: order the four points along a's dominant axis (exact on one line).
        bool useX = fabs(a1.x - a0.x) >= fabs(a1.y - a0.y);
        double dir = (useX ? a1.x - a0.x : a1.y - a0.y) > 0.0 ? 1.0 : -1.0;
        double ka0 = dir * (useX ? a0.x : a0.y), ka1 = dir * (useX ? a1.x : a1.y);
        double kb0 = dir * (useX ? b0.x : b0.y), kb1 = dir * (useX ? b1.x : b1.y);
        lsVec2 bLo = kb0 <= kb1 ? b0 : b1, bHi = kb0 <= kb1 ? b1 : b0;
        double kbLo = lsFmin(kb0, kb1), kbHi = lsFmax(kb0, kb1);
        lsVec2 start = kbLo > ka0 ? bLo : a0;
        lsVec2 end = kbHi < ka1 ? bHi : a1;
        double kStart = lsFmax(kbLo, ka0), kEnd = lsFmin(kbHi, ka1);
        if (kStart > kEnd)
        {
            return out; // cannot happen after the box test, kept as a guard
        }
        out.hit = true;
        out.collinear = kStart < kEnd;
        out.point = start;
        out.s = SegmentParameter(a0, a1, start);
        out.t = SegmentParameter(b0, b1, start);
        out.sEnd = out.collinear ? SegmentParameter(a0, a1, end) : out.s;
        return out;
    }
    int o3 = lsOrient(b0, b1, a0), o4 = lsOrient(b0, b1, a1);
    if (o3 * o4 > 0)
    {
        return out;
    }
    out.hit = true;
    // One meeting point. An endpoint exactly on the other segment's line is that point.
    if (o1 == 0 || o2 == 0)
    {
        out.point = o1 == 0 ? b0 : b1;
        out.t = o1 == 0 ? 0.0 : 1.0;
        out.s = SegmentParameter(a0, a1, out.point);
    }
    else if (o3 == 0 || o4 == 0)
    {
        out.point = o3 == 0 ? a0 : a1;
        out.s = o3 == 0 ? 0.0 : 1.0;
        out.t = SegmentParameter(b0, b1, out.point);
    }
    else
    {
        // Proper crossing: each parameter from the two signed side distances of the other segment's endpoints,
        // whose signs are known to differ, so the ratio has no cancellation and stays in [0, 1].
        long double eax = (long double)a1.x - (long double)a0.x, eay = (long double)a1.y - (long double)a0.y;
        long double ebx = (long double)b1.x - (long double)b0.x, eby = (long double)b1.y - (long double)b0.y;
        long double c1 = eax * ((long double)b0.y - (long double)a0.y) - eay * ((long double)b0.x - (long double)a0.x);
        long double c2 = eax * ((long double)b1.y - (long double)a0.y) - eay * ((long double)b1.x - (long double)a0.x);
        long double c3 = ebx * ((long double)a0.y - (long double)b0.y) - eby * ((long double)a0.x - (long double)b0.x);
        long double c4 = ebx * ((long double)a1.y - (long double)b0.y) - eby * ((long double)a1.x - (long double)b0.x);
        c1 = (c1 > 0) == (o1 > 0) ? c1 : 0.0L;
        c2 = (c2 > 0) == (o2 > 0) ? c2 : 0.0L;
        c3 = (c3 > 0) == (o3 > 0) ? c3 : 0.0L;
        c4 = (c4 > 0) == (o4 > 0) ? c4 : 0.0L;
        out.t = c1 != c2 ? lsClamp((double)(c1 / (c1 - c2)), 0.0, 1.0) : 0.5;
        out.s = c3 != c4 ? lsClamp((double)(c3 / (c3 - c4)), 0.0, 1.0) : 0.5;
        lsVec2 p = PointAt(a0, a1, out.s);
        // Keep the rounded point inside both segments' boxes.
        p = lsClampToSegmentBox(p, b0, b1);
        out.point = lsClampToSegmentBox(p, a0, a1);
    }
    out.sEnd = out.s;
    return out;
}

// True when the closed segments share a point (the boolean part of lsIntersectSegments).
static bool SegmentsTouch(lsVec2 a0, lsVec2 a1, lsVec2 b0, lsVec2 b1)
{
    if (!lsAABB_Overlaps(lsAABB_OfSegment(a0, a1), lsAABB_OfSegment(b0, b1)))
    {
        return false;
    }
    int o1 = lsOrient(a0, a1, b0), o2 = lsOrient(a0, a1, b1);
    if (o1 * o2 > 0)
    {
        return false;
    }
    int o3 = lsOrient(b0, b1, a0), o4 = lsOrient(b0, b1, a1);
    if (o3 * o4 > 0)
    {
        return false;
    }
    // All four zero means collinear (or a point): the box overlap decides, and it held.
    return true;
}

bool lsSegmentOverlapsCircle(const lsSegment* segment, const lsCircle* circle)
{
    LS_ASSERT(circle->radius >= 0.0);
    lsVec2 a = segment->a, b = segment->b, c = circle->center;
    double r = circle->radius;
    if (lsCircleSideSign(a, c, r) <= 0 || lsCircleSideSign(b, c, r) <= 0)
    {
        return true;
    }
    // Both endpoints outside: the segment meets the disc iff the centre projects strictly between them and the
    // line comes within r: r^2 |e|^2 - cross(e, c - a)^2 >= 0.
    if (lsVecEqual(a, b) || lsSignOfDotDiff(c, a, b, a) <= 0 || lsSignOfDotDiff(c, b, b, a) >= 0)
    {
        return false;
    }
    double ex = b.x - a.x, ey = b.y - a.y, fx = c.x - a.x, fy = c.y - a.y;
    double c1 = ex * fy, c2 = ey * fx;
    double cr = c1 - c2;
    double crErr = 0x1p-51 * (fabs(c1) + fabs(c2));
    double ree = r * r * (ex * ex + ey * ey);
    double cr2 = cr * cr;
    double v = ree - cr2;
    double bound = LS_FILTER_BOUND8 * (ree + cr2) + 2.5 * fabs(cr) * crErr + 2.0 * crErr * crErr;
    if (fabs(v) > bound && bound >= LS_FILTER_TINY && isfinite(bound))
    {
        return v > 0.0;
    }
    // cross(b - a, c - a) = bx cy - bx ay - ax cy - by cx + by ax + ay cx; |e|^2 = (bx - ax)^2 + (by - ay)^2.
    lsExactTerm crTerms[6] = {
        {{b.x, c.y}, 2}, {{-b.x, a.y}, 2}, {{-a.x, c.y}, 2}, {{-b.y, c.x}, 2}, {{b.y, a.x}, 2}, {{a.y, c.x}, 2},
    };
    lsExactTerm eTerms[4] = {{{b.x}, 1}, {{-a.x}, 1}, {{b.y}, 1}, {{-a.y}, 1}};
    lsExactTerm rr = {{r, r}, 2};
    lsExactTerm terms[LS_EXACT_MAX_TERMS];
    int n = 0;
    lsExactTerm exSq[4], eySq[4];
    int nx = 0, ny = 0;
    lsExactAppendProduct(exSq, &nx, eTerms, 2, eTerms, 2, 1.0);
    lsExactAppendProduct(eySq, &ny, eTerms + 2, 2, eTerms + 2, 2, 1.0);
    lsExactAppendProduct(terms, &n, &rr, 1, exSq, nx, 1.0);
    lsExactAppendProduct(terms, &n, &rr, 1, eySq, ny, 1.0);
    lsExactAppendProduct(terms, &n, crTerms, 6, crTerms, 6, -1.0);
    return lsExactSign(terms, n) >= 0;
}

bool lsSegmentOverlapsBox(const lsSegment* segment, const lsBox* box)
{
    // The segment's parameter range [0, 1] clipped against the box's closed slabs, in its frame.
    lsVec2 p = lsInvRotate(box->rot, lsSub(segment->a, box->center));
    lsVec2 q = lsInvRotate(box->rot, lsSub(segment->b, box->center));
    lsAABB slabs = {{-box->halfSize.x, -box->halfSize.y}, {box->halfSize.x, box->halfSize.y}};
    double t0 = 0.0, t1 = 1.0;
    return lsAABB_ClipLine(slabs, p, lsSub(q, p), &t0, &t1);
}

bool lsSegmentOverlapsPolygon(const lsSegment* segment, const lsPolygon* polygon)
{
    int n = polygon->count;
    LS_ASSERT(n >= 3 && n <= LS_MAX_POLYGON_VERTICES);
    // Rapid rejection (exact comparisons): the closed shapes lie in their closed bounding boxes.
    if (!lsAABB_Overlaps(lsAABB_OfSegment(segment->a, segment->b), lsPolygon_Bounds(polygon)))
    {
        return false;
    }
    if (lsPolygon_Contains(polygon, segment->a) || lsPolygon_Contains(polygon, segment->b))
    {
        return true;
    }
    // Both endpoints outside a convex solid: they share a point iff the segment meets the boundary.
    for (int i = 0; i < n; ++i)
    {
        if (SegmentsTouch(segment->a, segment->b, polygon->vertices[i], polygon->vertices[i + 1 < n ? i + 1 : 0]))
        {
            return true;
        }
    }
    return false;
}

// ---------------------------------------------------------------------------------------------------------------------
// Closest points

lsClosestPoint lsClosestPointOnSegment(const lsSegment* segment, lsVec2 p)
{
    lsClosestPoint out;
    out.fraction = ProjectParameter(segment->a, segment->b, p);
    out.point = PointAt(segment->a, segment->b, out.fraction);
    out.distance = lsDistance(p, out.point);
    out.index = 0;
    return out;
}

lsClosestPoint lsClosestPointOnPolyline(const lsVec2* points, int count, bool closed, lsVec2 p)
{
    LS_ASSERT(points != NULL && count >= 1);
    lsClosestPoint best = {points[0], 0.0, lsDistance(p, points[0]), 0};
    int segments = count == 1 ? 0 : (closed ? count : count - 1);
    for (int i = 0; i < segments; ++i)
    {
        lsSegment s = {points[i], points[i + 1 < count ? i + 1 : 0]};
        lsClosestPoint c = lsClosestPointOnSegment(&s, p);
        if (i == 0 || c.distance < best.distance)
        {
            best = c;
            best.index = i;
        }
    }
    return best;
}
