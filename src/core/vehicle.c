// lidarsim core: vehicles that follow paths, after Craig Reynolds' "Steering Behaviors For Autonomous Characters"
// (GDC 1999, path following): predict ahead, project onto the path, seek a target further along only when the
// prediction leaves the path's radius. Pure functions of the vehicle's state; the sim integrates and collides.
#include "core/vehicle.h"
#include "lidarsim/sim.h"

lsPathFollowDef lsDefaultPathFollowDef(void)
{
    return (lsPathFollowDef){
        .predictTime = 0.5, .targetTime = 0.25, .arriveTime = 1.0, .responseTime = 0.1, .stepTime = 1.0 / 60.0};
}

// Lengths by sqrt of the squared length: hypot's overflow safety is not needed for path segments, and it is slow.
static double Length(lsVec2 v) { return sqrt(v.x * v.x + v.y * v.y); }

static int SegmentCount(const lsPathDef* path) { return path->closed ? path->pointCount : path->pointCount - 1; }

static lsSegment PathSegment(const lsPathDef* path, int i)
{
    int j = i + 1 == path->pointCount ? 0 : i + 1;
    return (lsSegment){path->points[i], path->points[j]};
}

// p projected onto seg (e = b - a) by a dot product: the fraction clamped to [0, 1], 0 on a segment of no length; its
// length goes to *len.
static double Project(lsSegment seg, lsVec2 e, lsVec2 p, double* len)
{
    double ee = lsDot(e, e);
    *len = sqrt(ee);
    return ee > 0.0 ? lsFmin(lsFmax(lsDot(lsSub(p, seg.a), e) / ee, 0.0), 1.0) : 0.0;
}

// The point at arc length s from the first point (closed paths wrap, open ones clamp), and the unit tangent there
// in the order of the points.
static lsVec2 PointAtArcLength(const lsPathDef* path, double totalLength, double s, lsVec2* tangent)
{
    int count = SegmentCount(path);
    if (path->closed && totalLength > 0.0)
    {
        s = fmod(s, totalLength);
        if (s < 0.0)
        {
            s += totalLength;
        }
    }
    else
    {
        s = lsFmin(lsFmax(s, 0.0), totalLength);
    }
    for (int i = 0; i < count; ++i)
    {
        lsSegment seg = PathSegment(path, i);
        double len = Length(lsSub(seg.b, seg.a));
        if (s <= len || i == count - 1)
        {
            *tangent = lsNormalize(lsSub(seg.b, seg.a));
            double f = len > 0.0 ? lsFmin(s / len, 1.0) : 0.0;
            return lsLerp(seg.a, seg.b, f);
        }
        s -= len;
    }
    *tangent = lsV(1.0, 0.0);
    return path->points[0];
}

// A point of the path: where, its arc length from the first point, the unit tangent of its segment, how far it is
// from the point searched for, and (window searches) its arc length relative to the window's origin, unwrapped.
typedef struct PathPoint
{
    lsVec2 point;
    double s;
    double offset;
    lsVec2 tangent;
    double distance;
} PathPoint;

// Two candidates this close (metres, relative to the coordinates' size) are the same distance away: an out-and-back
// path's two legs lie on each other, and their projections differ in the last bits.
static double TieTolerance(lsVec2 p) { return 1e-9 * (1.0 + fabs(p.x) + fabs(p.y)); }

// The nearest point of the path to p by clamped projection (Reynolds' normal point: a dot product, clamped to the
// segment), among the points whose arc length lies in origin + [lo, hi] (lo <= 0 <= hi; a closed path wraps, so the
// window may run past either end; an open one stops at its ends). Of candidates equally near (TieTolerance), the one
// farthest along in `prefer`'s direction wins (+1: the larger arc length, -1: the smaller); `whole` searches every
// point of the path once, origin only giving the offsets (the first point of a closed path counts as arc length 0).
// A segment whose direction (times `prefer`) is more than 120 degrees from the unit vector `travel` counts as
// `penalty` metres farther (0: none), so that of two legs near each other the one going the vehicle's way wins.
static PathPoint NearestOnPath(const lsPathDef* path, double total, lsVec2 p, double origin, double lo, double hi,
                               bool whole, int prefer, lsVec2 travel, double penalty)
{
    int count = SegmentCount(path);
    double tol = TieTolerance(p);
    double best = HUGE_VAL;
    PathPoint found = {path->points[0], 0.0, -origin, lsV(1.0, 0.0), HUGE_VAL};
    // A closed path's window covers it at most once; longer windows search it whole.
    bool wrap = path->closed && !whole;
    if (wrap && hi - lo >= total)
    {
        whole = true;
        wrap = false;
    }
    double before = 0.0;
    for (int i = 0; i < count; ++i)
    {
        lsSegment seg = PathSegment(path, i);
        lsVec2 e = lsSub(seg.b, seg.a);
        double len;
        double f = Project(seg, e, p, &len);
        // The copies of the segment a window may meet: shifted by a lap before and after on a closed path.
        for (int k = wrap ? -1 : 0; k <= (wrap ? 1 : 0); ++k)
        {
            double g = f;
            double shift = (double)k * total;
            if (!whole)
            {
                // The window in the segment's own arc length; clamped only where it cuts the segment, so a window
                // that holds the whole segment gives the very bits of the plain projection.
                double from = origin + lo - shift - before;
                double to = origin + hi - shift - before;
                if (to < 0.0 || from > len || len <= 0.0)
                {
                    continue;
                }
                if (from > 0.0)
                {
                    g = lsFmax(g, from / len);
                }
                if (to < len)
                {
                    g = lsFmin(g, to / len);
                }
            }
            lsVec2 q = g == 1.0 ? seg.b : lsMulAdd(seg.a, g, e);
            double d = sqrt(lsDistanceSquared(p, q));
            if (penalty > 0.0 && len > 0.0 && (double)prefer * lsDot(travel, e) < -0.5 * len)
            {
                d += penalty; // the segment runs against the way the vehicle goes
            }
            double s = before + g * len;
            double offset = s + shift - origin;
            if (d < best - tol || (d <= best + tol && (double)prefer * (offset - found.offset) > 0.0))
            {
                best = lsFmin(best, d);
                found = (PathPoint){q, s, offset, len > 0.0 ? lsScale(1.0 / len, e) : found.tangent, d};
            }
        }
        before += len;
    }
    found.distance = sqrt(lsDistanceSquared(p, found.point));
    return found;
}

static double PathLength(const lsPathDef* path)
{
    double total = 0.0;
    for (int i = 0; i < SegmentCount(path); ++i)
    {
        lsSegment seg = PathSegment(path, i);
        total += Length(lsSub(seg.b, seg.a));
    }
    return total;
}

static lsVec2 Truncate(lsVec2 v, double maxLength)
{
    double len = lsLength(v);
    return len > maxLength && len > 0.0 ? lsScale(maxLength / len, v) : v;
}

// Reynolds' steering = desired velocity - current velocity, limited to the maximum force. His vehicles apply it
// once per frame; with a fixed step of any size it becomes the acceleration that reaches the desired velocity in
// responseTime seconds.
static lsVec2 SteerTowards(lsVec2 desired, lsVec2 velocity, double maxForce, double responseTime)
{
    return Truncate(lsScale(1.0 / responseTime, lsSub(desired, velocity)), maxForce);
}

// Where a vehicle picks its path up without a progress to go by (at the start of a run: progress 0; after its path
// was edited: the old progress, a guess): of the segments that pass within the path's radius of it, the point whose
// arc length is nearest that progress (at the start the leg met first in the order of the points, so a vehicle on a
// path whose legs lie near each other, an out-and-back or a two-lane turnaround, starts on the way out); when none
// passes that near, the nearest point of the whole path, the earliest in the order of travel of equally near ones.
static PathPoint StartOnPath(const lsPathDef* path, double total, lsVec2 p, double progress, int dir)
{
    int count = SegmentCount(path);
    double before = 0.0;
    double bestGap = HUGE_VAL;
    PathPoint found = {p, 0.0, 0.0, lsV(1.0, 0.0), HUGE_VAL};
    for (int i = 0; i < count; ++i)
    {
        lsSegment seg = PathSegment(path, i);
        lsVec2 e = lsSub(seg.b, seg.a);
        double len;
        double f = Project(seg, e, p, &len);
        lsVec2 q = f == 1.0 ? seg.b : lsMulAdd(seg.a, f, e);
        double d = sqrt(lsDistanceSquared(p, q));
        double s = before + f * len;
        double gap = fabs(s - progress);
        if (path->closed)
        {
            gap = lsFmin(gap, total - gap);
        }
        if (d <= path->radius && gap < bestGap)
        {
            bestGap = gap;
            found = (PathPoint){q, s, s - progress, len > 0.0 ? lsScale(1.0 / len, e) : lsV(1.0, 0.0), d};
        }
        before += len;
    }
    if (bestGap < HUGE_VAL)
    {
        return found;
    }
    return NearestOnPath(path, total, p, 0.0, 0.0, 0.0, true, -dir, lsV(0.0, 0.0), 0.0);
}

// Where the vehicle is along the path: the nearest point within a window about its progress (Reynolds projects on the
// whole path, which jumps to another part of it wherever the path comes back near itself: the far leg of an
// out-and-back, the other branch at a figure eight's crossing). The window reaches past what the vehicle travels in a
// step, and a path's radius on either side for the turn inside a corner; a vehicle farther from it than lostDistance
// (pushed away, or its progress out of date) takes the nearest point of the whole path when that is clearly nearer.
static PathPoint FindProgress(const lsPathDef* path, const lsVehicleDef* def, const lsPathFollowDef* tuning,
                              double total, lsVehicleState* state)
{
    int dir = state->direction;
    if (!state->tracking)
    {
        state->tracking = true;
        return StartOnPath(path, total, state->position, state->progress, dir);
    }
    double reach = 2.0 * (def->maxSpeed * tuning->stepTime + path->radius);
    // Of two legs within the window (the two sides of a hairpin), the one going the vehicle's way: coming round a
    // hairpin tighter than it can turn, a vehicle swung across the leg it came along and followed that backwards.
    double speed = lsLength(state->velocity);
    lsVec2 travel = speed > 1e-9 ? lsScale(1.0 / speed, state->velocity) : lsV(0.0, 0.0);
    PathPoint here = NearestOnPath(path, total, state->position, state->progress, -reach, reach, false, dir, travel,
                                   2.0 * path->radius);
    if (here.distance > lsVehicle_LostDistance(path, def, tuning))
    {
        PathPoint anywhere = NearestOnPath(path, total, state->position, 0.0, 0.0, 0.0, true, -dir, lsV(0.0, 0.0), 0.0);
        if (anywhere.distance < here.distance - path->radius)
        {
            return anywhere;
        }
    }
    return here;
}

double lsVehicle_LostDistance(const lsPathDef* path, const lsVehicleDef* def, const lsPathFollowDef* tuning)
{
    // Beyond any swing of a vehicle that follows: the corridor, the prediction and a turn at full speed (a hairpin
    // tighter than that turn takes it out of the corridor by up to about the turning radius).
    double turn = def->maxSpeed * def->maxSpeed / def->maxForce;
    return path->radius + def->maxSpeed * tuning->predictTime + turn;
}

lsVec2 lsVehicle_PathForce(const lsPathDef* path, const lsVehicleDef* def, const lsPathFollowDef* tuning,
                           lsVehicleState* state)
{
    LS_ASSERT(path != NULL && def != NULL && tuning != NULL && state != NULL && tuning->responseTime > 0.0);
    LS_ASSERT(path->pointCount >= 2);
    LS_ASSERT(state->direction == 1 || state->direction == -1);

    double totalLength = PathLength(path);
    double speed = lsLength(state->velocity);
    double dir = (double)state->direction;

    // Where the vehicle is along the path, for the ends of open paths, for a heading when at rest, and as the origin
    // of the window where the normal point is looked for.
    PathPoint here = FindProgress(path, def, tuning, totalLength, state);
    state->progress = here.s;
    double hereS = here.s;
    lsVec2 heading = speed > 1e-9 ? lsScale(1.0 / speed, state->velocity) : lsScale(dir, here.tangent);

    // Open path: turn back, or arrive and stop, near the end the vehicle is heading for. It turns back only when that
    // end is the nearer one: on a path shorter than twice the turning distance both ends are within it, and turning
    // at both made it turn back on every step, jittering in place.
    double arriveDistance = def->maxSpeed * tuning->arriveTime;
    if (!path->closed)
    {
        double toEnd = state->direction > 0 ? totalLength - hereS : hereS;
        if (def->pathEnd == ls_pathEndReverse && toEnd <= def->maxSpeed * tuning->targetTime &&
            toEnd < totalLength - toEnd)
        {
            state->direction = -state->direction;
            dir = -dir;
        }
    }

    // The normal point, looked for from the vehicle's progress: up to twice the prediction ahead (more path than the
    // prediction's reach where the path bends), and the prediction behind (a vehicle heading against the path).
    double predictDistance = def->maxSpeed * tuning->predictTime;
    double reach = 2.0 * (def->maxSpeed * tuning->stepTime + path->radius);
    double ahead = 2.0 * predictDistance + reach, behind = predictDistance + reach;
    lsVec2 predicted = lsMulAdd(state->position, predictDistance, heading);
    PathPoint normal = NearestOnPath(path, totalLength, predicted, hereS, dir > 0.0 ? -behind : -ahead,
                                     dir > 0.0 ? ahead : behind, false, state->direction, lsV(0.0, 0.0), 0.0);
    double normalS = normal.s;
    double normalDistance = normal.distance;
    lsVec2 normalPoint = normal.point;
    lsVec2 targetTangent;
    lsVec2 target =
        PointAtArcLength(path, totalLength, normalS + dir * def->maxSpeed * tuning->targetTime, &targetTangent);

    state->predicted = predicted;
    state->normalPoint = normalPoint;
    state->target = target;
    state->seeking = false;

    if (!path->closed && def->pathEnd == ls_pathEndStop)
    {
        lsVec2 end = state->direction > 0 ? path->points[path->pointCount - 1] : path->points[0];
        double toEnd = state->direction > 0 ? totalLength - hereS : hereS;
        if (toEnd < arriveDistance)
        {
            // Arrival (Reynolds): the desired speed falls linearly to zero at the end point.
            lsVec2 offset = lsSub(end, state->position);
            double distance = lsLength(offset);
            state->target = end;
            state->seeking = true;
            if (distance < 1e-3 * def->radius && speed < 1e-3 * def->maxSpeed)
            {
                state->stopped = true;
            }
            lsVec2 desired = lsScale(def->maxSpeed * lsFmin(distance / arriveDistance, 1.0), lsNormalize(offset));
            return SteerTowards(desired, state->velocity, def->maxForce, tuning->responseTime);
        }
        state->stopped = false;
    }

    if (normalDistance > path->radius)
    {
        state->seeking = true;
        lsVec2 desired = lsScale(def->maxSpeed, lsNormalize(lsSub(target, state->position)));
        return SteerTowards(desired, state->velocity, def->maxForce, tuning->responseTime);
    }
    // Inside the radius Reynolds' vehicle applies no force; it only gets up to speed along its own heading.
    if (speed >= def->maxSpeed)
    {
        return lsV(0.0, 0.0);
    }
    return SteerTowards(lsScale(def->maxSpeed, heading), state->velocity, def->maxForce, tuning->responseTime);
}
