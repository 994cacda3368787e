// lidarsim core: moving walls. A mover's segment is a pure function of time, so the sim, the lidar, the view and
// the editor all agree on where it is without sharing any state.
#include "lidarsim/sim.h"

// The door's triangle wave: 0 at phase 0, 1 at phase 1/2, back to 0 at phase 1; continuous and piecewise linear,
// so the door moves at a constant speed |offset| * 2 / period between its two positions.
static double TriangleWave(double x)
{
    double f = x - floor(x);
    return f < 0.5 ? 2.0 * f : 2.0 - 2.0 * f;
}

lsSegment lsMover_SegmentAt(const lsMoverDef* mover, double time)
{
    LS_ASSERT(mover != NULL);
    if (mover->kind == ls_moverDoor)
    {
        LS_ASSERT(mover->period > 0.0);
        double k = TriangleWave(time / mover->period + mover->phase);
        return (lsSegment){lsMulAdd(mover->a, k, mover->offset), lsMulAdd(mover->b, k, mover->offset)};
    }
    // Bar: rotate both ends about the pivot. The angle is reduced first so a long run keeps full precision in cos/sin.
    double angle = remainder(mover->angularSpeed * time, 2.0 * LS_PI);
    lsRot q = lsMakeRot(angle);
    lsVec2 a = lsAdd(mover->pivot, lsRotate(q, lsSub(mover->a, mover->pivot)));
    lsVec2 b = lsAdd(mover->pivot, lsRotate(q, lsSub(mover->b, mover->pivot)));
    return (lsSegment){a, b};
}
