// lidarsim core: the robot's kinematics: differential drive integrated exactly (straight lines and arcs), speeds
// approaching their commands, and the discrete actions' commands.
#include "core/robot.h"
#include "lidarsim/sim.h"

#include <math.h>

double lsApproachSpeed(double speed, double command, double maxSpeed, double maxAccel, double dt)
{
    command = lsFmin(lsFmax(command, -maxSpeed), maxSpeed);
    double step = maxAccel * dt;
    double next = speed < command ? lsFmin(speed + step, command) : lsFmax(speed - step, command);
    return lsFmin(lsFmax(next, -maxSpeed), maxSpeed);
}

void lsIntegrateUnicycle(lsVec2 position, double angle, double v, double w, double dt, lsVec2* newPosition,
                         double* newAngle)
{
    double turn = w * dt;
    if (fabs(turn) < 1e-9)
    {
        // The arc formula loses precision as w -> 0; the midpoint heading is exact to O(turn^2) here.
        lsVec2 dir = lsDirection(angle + 0.5 * turn);
        *newPosition = lsMulAdd(position, v * dt, dir);
    }
    else
    {
        double r = v / w;
        double a1 = angle + turn;
        *newPosition = lsAdd(position, lsV(r * (sin(a1) - sin(angle)), -r * (cos(a1) - cos(angle))));
    }
    *newAngle = lsWrapAngle(angle + turn);
}

void lsAction_Command(lsAction action, const lsRobotDef* robot, double* v, double* w)
{
    LS_ASSERT(robot != NULL && v != NULL && w != NULL);
    static const double table[ls_actionCount][2] = {
        [ls_actionForward] = {1.0, 0.0},     [ls_actionLeft] = {0.0, 1.0},          [ls_actionRight] = {0.0, -1.0},
        [ls_actionForwardLeft] = {0.5, 0.5}, [ls_actionForwardRight] = {0.5, -0.5}, [ls_actionStop] = {0.0, 0.0},
    };
    LS_ASSERT((int)action >= 0 && action < ls_actionCount);
    *v = table[action][0] * robot->maxSpeed;
    *w = table[action][1] * robot->maxTurnRate;
}
