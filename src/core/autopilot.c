// lidarsim core: the autopilot. It sees only the robot's own lidar scan (ranges, hit points, what each beam hit)
// and picks a direction by the free corridor a body of its width has along it, so it wanders the default world,
// goes for food it sees, keeps away from poison, and backs out when it has stopped making progress.
#include "core/sim.h"

#define LS_AUTOPILOT_DIRECTIONS 41
#define LS_AUTOPILOT_MAX_BEAMS 360
#define LS_AUTOPILOT_STUCK_WINDOW 1.5  // seconds between progress checks
#define LS_AUTOPILOT_ESCAPE_TIME 0.6   // seconds of backing up and turning
#define LS_AUTOPILOT_HORIZON_TIME 2.0  // look this many seconds of full speed ahead

lsAutopilot lsMakeAutopilot(uint64_t seed)
{
    lsAutopilot a = {0};
    a.rng = lsMakeRng(seed);
    a.checkTime = -1.0;
    a.escapeUntil = -1.0;
    a.escapeTurn = 1.0;
    return a;
}

typedef struct Seen
{
    lsVec2 point; // robot frame
    double angle; // robot frame, radians
    double range;
    int kind; // 0 obstacle, 1 food, 2 poison
} Seen;

static double Gauss(double x, double sigma) { return exp(-0.5 * (x * x) / (sigma * sigma)); }

// Wraps an angle within (-3 pi, 3 pi) into (-pi, pi] without a division (lsWrapAngle's remainder() is slow, and
// this runs for every beam).
static double WrapNear(double a)
{
    if (a > LS_PI)
    {
        return a - 2.0 * LS_PI;
    }
    return a <= -LS_PI ? a + 2.0 * LS_PI : a;
}

lsControl lsAutopilot_Decide(lsAutopilot* autopilot, const lsScan* scan, const lsScene* scene, const lsRobotDef* def,
                             const lsRobotState* robot, double time, bool newScan)
{
    LS_ASSERT(autopilot != NULL && scan != NULL && scene != NULL && def != NULL && robot != NULL);
    lsAutopilot* ap = autopilot;

    // Stuck detector: too little progress over the window means backing up and turning for a moment.
    if (ap->checkTime < 0.0)
    {
        ap->checkPosition = robot->position;
        ap->checkTime = time;
    }
    else if (time - ap->checkTime >= LS_AUTOPILOT_STUCK_WINDOW)
    {
        if (lsDistance(robot->position, ap->checkPosition) < 0.25 * robot->radius && time >= ap->escapeUntil)
        {
            ap->escapeUntil = time + LS_AUTOPILOT_ESCAPE_TIME;
            ap->escapeTurn = ap->chosen >= 0.0 ? 1.0 : -1.0;
        }
        ap->checkPosition = robot->position;
        ap->checkTime = time;
    }
    if (time < ap->escapeUntil)
    {
        ap->v = -0.3 * def->maxSpeed;
        ap->w = ap->escapeTurn * 0.8 * def->maxTurnRate;
        return lsMakeManualControl(ap->v, ap->w);
    }
    if (!newScan || scan->count == 0)
    {
        return lsMakeManualControl(ap->v, ap->w);
    }

    // What the beams saw, in the robot frame (at most LS_AUTOPILOT_MAX_BEAMS of them, evenly spread).
    Seen seen[LS_AUTOPILOT_MAX_BEAMS + 1];
    int seenCount = 0;
    int stride = (scan->count + LS_AUTOPILOT_MAX_BEAMS - 1) / LS_AUTOPILOT_MAX_BEAMS;
    lsRot heading = lsMakeRot(robot->angle);
    double sensorHeading = lsWrapAngle(lsRot_GetAngle(scan->pose.q) - robot->angle);
    double horizon = fmin(scan->rangeMax, def->maxSpeed * LS_AUTOPILOT_HORIZON_TIME + robot->radius);
    double width = 1.3 * robot->radius + 0.05; // half-width of the corridor a body needs
    for (int i = 0; i < scan->count && seenCount < LS_AUTOPILOT_MAX_BEAMS; i += stride)
    {
        if (!isfinite(scan->ranges[i]) || scan->kinds[i] == ls_hitNone)
        {
            continue;
        }
        int kind = 0;
        if (scan->kinds[i] == ls_hitTarget)
        {
            kind = lsScene_TargetKind(scene, scan->indices[i]) == ls_food ? 1 : 2;
        }
        if (kind == 0 && scan->ranges[i] > horizon + width)
        {
            continue; // an obstacle beyond the horizon cannot shorten any corridor
        }
        Seen* s = &seen[seenCount++];
        s->point = lsInvRotate(heading, lsSub(scan->points[i], robot->position));
        s->angle = WrapNear(sensorHeading + scan->angles[i]);
        s->range = scan->ranges[i];
        s->kind = kind;
    }

    // The wander bias: a slow random walk, pulled back towards straight ahead.
    ap->wander = fmin(fmax(0.97 * ap->wander + 0.25 * lsRng_Gaussian(&ap->rng), -0.5 * LS_PI), 0.5 * LS_PI);

    double span = fmin(0.5 * (scan->layout.angleMax - scan->layout.angleMin) + 0.1, 0.85 * LS_PI);
    double bestScore = -INFINITY, bestAngle = 0.0, bestClearance = 0.0, aheadClearance = horizon;
    for (int k = 0; k < LS_AUTOPILOT_DIRECTIONS; ++k)
    {
        double angle = -span + 2.0 * span * (double)k / (double)(LS_AUTOPILOT_DIRECTIONS - 1);
        angle = WrapNear(angle + sensorHeading);
        lsVec2 u = lsDirection(angle);
        double clearance = horizon;
        double food = 0.0, poison = 0.0;
        for (int j = 0; j < seenCount; ++j)
        {
            const Seen* s = &seen[j];
            if (s->kind == 1)
            {
                food = fmax(food, Gauss(WrapNear(angle - s->angle), 0.25) * (1.0 - s->range / scan->rangeMax));
                continue; // food is to be touched, not avoided
            }
            if (s->kind == 2)
            {
                poison = fmax(poison, Gauss(WrapNear(angle - s->angle), 0.35) * (1.0 - s->range / scan->rangeMax));
            }
            double along = lsDot(s->point, u);
            double lateral = fabs(lsCross(u, s->point));
            if (along > 0.0 && lateral < width)
            {
                clearance = fmin(clearance, fmax(along - sqrt(width * width - lateral * lateral), 0.0));
            }
        }
        double score = clearance / horizon - 0.2 * fabs(angle) / LS_PI + 0.15 * cos(angle - ap->wander) +
                       1.2 * food - 1.0 * poison;
        if (clearance < 0.5 * robot->radius)
        {
            score -= 2.0; // a direction it cannot move in at all
        }
        if (score > bestScore)
        {
            bestScore = score;
            bestAngle = angle;
            bestClearance = clearance;
        }
        if (k == LS_AUTOPILOT_DIRECTIONS / 2)
        {
            aheadClearance = clearance;
        }
    }
    ap->chosen = bestAngle;

    // Turn towards the chosen direction; drive only as fast as the corridor ahead (and the turn) allows.
    double w = fmin(fmax(3.0 * bestAngle, -def->maxTurnRate), def->maxTurnRate);
    double room = fmin(aheadClearance, bestClearance);
    double stopping = def->maxSpeed * def->maxSpeed / (2.0 * def->maxAccel) + 0.1 * robot->radius;
    double v = def->maxSpeed * fmin(fmax((room - 0.1 * robot->radius) / (stopping + 0.5 * robot->radius), 0.0), 1.0);
    v *= fmax(cos(bestAngle), 0.0);
    ap->v = v;
    ap->w = w;
    return lsMakeManualControl(v, w);
}
