// lidarsim core: vehicles that follow paths, after Craig Reynolds' "Steering Behaviors For Autonomous Characters"
// (GDC 1999, path following): predict ahead, project onto the path, seek a target further along only when the
// prediction leaves the path's radius. Pure functions of the vehicle's state; the sim integrates and collides.
#include "core/vehicle.h"
#include "lidarsim/sim.h"

lsPathFollowDef lsDefaultPathFollowDef(void)
{
    return (lsPathFollowDef){.predictTime = 0.5, .targetTime = 0.25, .arriveTime = 1.0, .responseTime = 0.1};
}

// Lengths by sqrt of the squared length: hypot's overflow safety is not needed for path segments, and it is slow.
static double Length(lsVec2 v) { return sqrt(v.x * v.x + v.y * v.y); }

static int SegmentCount(const lsPathDef* path) { return path->closed ? path->pointCount : path->pointCount - 1; }

static lsSegment PathSegment(const lsPathDef* path, int i)
{
    int j = i + 1 == path->pointCount ? 0 : i + 1;
    return (lsSegment){path->points[i], path->points[j]};
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
        s = fmin(fmax(s, 0.0), totalLength);
    }
    for (int i = 0; i < count; ++i)
    {
        lsSegment seg = PathSegment(path, i);
        double len = Length(lsSub(seg.b, seg.a));
        if (s <= len || i == count - 1)
        {
            *tangent = lsNormalize(lsSub(seg.b, seg.a));
            double f = len > 0.0 ? fmin(s / len, 1.0) : 0.0;
            return lsLerp(seg.a, seg.b, f);
        }
        s -= len;
    }
    *tangent = lsV(1.0, 0.0);
    return path->points[0];
}

// The nearest point of the path to p by clamped projection on every segment (first segment on ties), with its
// arc length from the first point and the unit tangent of its segment.
static lsVec2 NearestOnPath(const lsPathDef* path, lsVec2 p, double* arcLength, lsVec2* tangent, double* distance)
{
    int count = SegmentCount(path);
    double best = HUGE_VAL;
    double before = 0.0;
    lsVec2 point = path->points[0];
    *arcLength = 0.0;
    *tangent = lsV(1.0, 0.0);
    for (int i = 0; i < count; ++i)
    {
        // Reynolds' normal point: project p on the segment's line by a dot product, clamped to the segment.
        lsSegment seg = PathSegment(path, i);
        lsVec2 e = lsSub(seg.b, seg.a);
        double ee = lsDot(e, e);
        double f = ee > 0.0 ? fmin(fmax(lsDot(lsSub(p, seg.a), e) / ee, 0.0), 1.0) : 0.0;
        lsVec2 q = f == 1.0 ? seg.b : lsMulAdd(seg.a, f, e);
        double d2 = lsDistanceSquared(p, q);
        double len = sqrt(ee);
        if (d2 < best)
        {
            best = d2;
            point = q;
            *arcLength = before + f * len;
            if (len > 0.0)
            {
                *tangent = lsScale(1.0 / len, e);
            }
        }
        before += len;
    }
    *distance = sqrt(best);
    return point;
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

lsVec2 lsVehicle_PathForce(const lsPathDef* path, const lsVehicleDef* def, const lsPathFollowDef* tuning,
                           lsVehicleState* state)
{
    LS_ASSERT(path != NULL && def != NULL && tuning != NULL && state != NULL && tuning->responseTime > 0.0);
    LS_ASSERT(path->pointCount >= 2);
    LS_ASSERT(state->direction == 1 || state->direction == -1);

    double totalLength = PathLength(path);
    double speed = lsLength(state->velocity);
    double dir = (double)state->direction;

    // Where the vehicle is along the path, for the ends of open paths and for a heading when at rest.
    double hereS, hereDistance;
    lsVec2 hereTangent;
    NearestOnPath(path, state->position, &hereS, &hereTangent, &hereDistance);
    lsVec2 heading = speed > 1e-9 ? lsScale(1.0 / speed, state->velocity) : lsScale(dir, hereTangent);

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

    lsVec2 predicted = lsMulAdd(state->position, def->maxSpeed * tuning->predictTime, heading);
    double normalS, normalDistance;
    lsVec2 normalTangent;
    lsVec2 normalPoint = NearestOnPath(path, predicted, &normalS, &normalTangent, &normalDistance);
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
            lsVec2 desired = lsScale(def->maxSpeed * fmin(distance / arriveDistance, 1.0), lsNormalize(offset));
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
