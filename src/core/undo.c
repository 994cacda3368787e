// lidarsim core: the editor's undo and redo history of world snapshots (edit.h).
#include "core/edit.h"

#include "lidarsim/geometry.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

struct lsUndoStack
{
    lsWorld** undo; // oldest first
    int undoCount;
    lsWorld** redo; // most recently undone last
    int redoCount;
    int maxSteps;
    size_t maxBytes;
    size_t bytes; // held by all snapshots
};

size_t lsEdit_WorldBytes(const lsWorld* world)
{
    size_t bytes = sizeof(lsWorld);
    bytes += (size_t)world->wallCapacity * sizeof(lsWallDef) + (size_t)world->targetCapacity * sizeof(lsTargetDef) +
             (size_t)world->boxCapacity * sizeof(lsBoxDef) + (size_t)world->polygonCapacity * sizeof(lsPolygonDef) +
             (size_t)world->pathCapacity * sizeof(lsPathDef) + (size_t)world->vehicleCapacity * sizeof(lsVehicleDef) +
             (size_t)world->moverCapacity * sizeof(lsMoverDef);
    for (int i = 0; i < world->wallCount; ++i)
    {
        bytes += (size_t)world->walls[i].pointCount * sizeof(lsVec2);
    }
    for (int i = 0; i < world->pathCount; ++i)
    {
        bytes += (size_t)world->paths[i].pointCount * sizeof(lsVec2);
    }
    return bytes;
}

lsUndoStack* lsCreateUndoStack(int maxSteps, size_t maxBytes)
{
    LS_ASSERT(maxSteps >= 1);
    lsUndoStack* stack = lsAllocZero(1, sizeof(lsUndoStack));
    stack->undo = lsAllocZero((size_t)maxSteps, sizeof(lsWorld*));
    stack->redo = lsAllocZero((size_t)maxSteps, sizeof(lsWorld*));
    stack->maxSteps = maxSteps;
    stack->maxBytes = maxBytes;
    return stack;
}

static void DropRedo(lsUndoStack* stack)
{
    for (int i = 0; i < stack->redoCount; ++i)
    {
        stack->bytes -= lsEdit_WorldBytes(stack->redo[i]);
        lsDestroyWorld(stack->redo[i]);
    }
    stack->redoCount = 0;
}

// Drops the oldest undo snapshot.
static void DropOldest(lsUndoStack* stack)
{
    stack->bytes -= lsEdit_WorldBytes(stack->undo[0]);
    lsDestroyWorld(stack->undo[0]);
    memmove(stack->undo, stack->undo + 1, (size_t)(stack->undoCount - 1) * sizeof(lsWorld*));
    stack->undoCount -= 1;
}

void lsUndoStack_Clear(lsUndoStack* stack)
{
    DropRedo(stack);
    while (stack->undoCount > 0)
    {
        DropOldest(stack);
    }
}

void lsDestroyUndoStack(lsUndoStack* stack)
{
    if (stack == NULL)
        return;
    lsUndoStack_Clear(stack);
    lsFree(stack->undo, (size_t)stack->maxSteps * sizeof(lsWorld*));
    lsFree(stack->redo, (size_t)stack->maxSteps * sizeof(lsWorld*));
    lsFree(stack, sizeof(lsUndoStack));
}

void lsUndoStack_Push(lsUndoStack* stack, lsWorld* before)
{
    LS_ASSERT(before != NULL);
    DropRedo(stack);
    if (stack->undoCount == stack->maxSteps)
        DropOldest(stack);
    stack->undo[stack->undoCount++] = before;
    stack->bytes += lsEdit_WorldBytes(before);
    // The byte budget drops the oldest steps but always keeps the newest, so one undo works even for a huge world.
    while (stack->maxBytes > 0 && stack->bytes > stack->maxBytes && stack->undoCount > 1)
    {
        DropOldest(stack);
    }
}

// Exchanges the contents of two worlds: the arrays change owner, no copy is made. Safe because a world holds no
// pointer into itself and every array is freed by its own count or capacity.
void lsEdit_SwapWorlds(lsWorld* a, lsWorld* b)
{
    lsWorld t = *a;
    *a = *b;
    *b = t;
}

bool lsUndoStack_Undo(lsUndoStack* stack, lsWorld* world)
{
    if (stack->undoCount == 0)
        return false;
    lsWorld* snapshot = stack->undo[--stack->undoCount];
    stack->bytes -= lsEdit_WorldBytes(snapshot);
    lsEdit_SwapWorlds(world, snapshot);
    // snapshot now holds the world as it was before the undo; redo brings it back.
    stack->redo[stack->redoCount++] = snapshot;
    stack->bytes += lsEdit_WorldBytes(snapshot);
    return true;
}

bool lsUndoStack_Redo(lsUndoStack* stack, lsWorld* world)
{
    if (stack->redoCount == 0)
        return false;
    lsWorld* snapshot = stack->redo[--stack->redoCount];
    stack->bytes -= lsEdit_WorldBytes(snapshot);
    lsEdit_SwapWorlds(world, snapshot);
    stack->undo[stack->undoCount++] = snapshot;
    stack->bytes += lsEdit_WorldBytes(snapshot);
    return true;
}

int lsUndoStack_UndoCount(const lsUndoStack* stack) { return stack->undoCount; }

int lsUndoStack_RedoCount(const lsUndoStack* stack) { return stack->redoCount; }
