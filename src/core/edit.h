// lidarsim core: editing operations on the world model (no SDL): pick the object at a point, move it, draw a wall,
// cut walls with a knife, delete, and an undo/redo history of snapshots. The in-window editor (app/editor.h) turns
// mouse and keys into these calls; tests call them directly.
//
// Every operation keeps the world valid, that is loadable: an operation that would make it invalid (a zero-length
// wall segment, a non-finite coordinate) changes nothing and returns false or -1.
// Objects are named by lsEditRef {kind, index, sub}: indices into the world's arrays, never pointers. A reference
// goes stale when the world changes under it (delete, undo, reload); check it with lsEdit_IsValidRef.
// Units: metres, world frame (x right, y up).
#pragma once

#include "lidarsim/world.h"

/// What an lsEditRef names.
typedef enum lsEditKind
{
    ls_editNone = 0,        ///< nothing
    ls_editWall = 1,        ///< a whole wall chain: index = wall
    ls_editWallPoint = 2,   ///< one corner of a wall chain: index = wall, sub = point
    ls_editTarget = 3,      ///< index = target
    ls_editBox = 4,         ///< index = box
    ls_editPolygon = 5,     ///< index = polygon (moves whole)
    ls_editRobot = 6,       ///< a robot's start pose: index = robot (0 .. lsWorld_RobotCount - 1)
    ls_editPath = 7,        ///< a whole path: index = path
    ls_editPathPoint = 8,   ///< one point of a path: index = path, sub = point
    ls_editVehicle = 9,     ///< a vehicle's start position: index = vehicle
    ls_editMover = 10,      ///< a whole moving wall (a, b and pivot together): index = mover
    ls_editMoverPoint = 11, ///< one handle of a moving wall: index = mover, sub = 0 (a), 1 (b) or 2 (pivot, bars only)
} lsEditKind;

/// A reference to an object of the world (or to one of its points).
typedef struct lsEditRef
{
    lsEditKind kind;
    int index;
    int sub;
} lsEditRef;

/// How many handles a mover has for ls_editMover refs' sub: a and b, and the pivot for bars.
static inline int lsMover_HandleCount(const lsMoverDef* mover) { return mover->kind == ls_moverBar ? 3 : 2; }
/// A mover's handle sub (0: a, 1: b, 2: pivot).
static inline lsVec2 lsMover_Handle(const lsMoverDef* mover, int sub)
{
    return sub == 0 ? mover->a : (sub == 1 ? mover->b : mover->pivot);
}

/// The null reference.
static inline lsEditRef lsEditRefNone(void) { return (lsEditRef){ls_editNone, 0, 0}; }
/// A reference to an object (sub = 0).
static inline lsEditRef lsMakeEditRef(lsEditKind kind, int index, int sub) { return (lsEditRef){kind, index, sub}; }
/// True when both name the same thing.
static inline bool lsEditRef_Equal(lsEditRef a, lsEditRef b)
{
    return a.kind == b.kind && (a.kind == ls_editNone || (a.index == b.index && a.sub == b.sub));
}

/// A short name for a kind ("wall", "wall corner", "target", ...), for messages.
const char* lsEditKind_Name(lsEditKind kind);

// ---------------------------------------------------------------------------------------------------------------------
// Picking

/// True when ref names something that exists in world (kind ls_editNone is not valid).
bool lsEdit_IsValidRef(const lsWorld* world, lsEditRef ref);

/// The object at world point p, within tolerance metres (the editor passes a few pixels converted to metres).
/// Handles win over bodies and bodies over lines, so a small thing on a big one can always be grabbed:
///   1. points within tolerance: path points, moving walls' ends and pivots, wall corners (the nearest wins);
///   2. solids containing p or within tolerance of their outline: targets, boxes, polygons, vehicles, the robots
///      (start poses); the nearest wins, inside counts as distance 0, and of equals the later in that order (the one
///      drawn on top) wins;
///   3. lines within tolerance: walls, moving walls (at time 0), paths' centre lines (the nearest wins).
/// Returns lsEditRefNone() when nothing is near.
lsEditRef lsEdit_Pick(const lsWorld* world, lsVec2 p, double tolerance);

/// True when ref names a wall made from the world's map (lsWallDef.fromMap), or one of its corners. Map walls are
/// not editable: they are made from the map's image at every load and never written to the world file, so a move,
/// a cut or a delete could not be saved. Translate, MoveTo, MoveCorners and Delete refuse them (false, nothing
/// changed), the knife passes over them and JoinedCorners leaves their corners out. To edit a map's walls, edit
/// its image, or turn the map into world walls with `lidarsim import`.
bool lsEdit_IsMapWall(const lsWorld* world, lsEditRef ref);

/// The point that drags move (the object's centre, the picked corner, a wall's first point, a mover's a).
lsVec2 lsEdit_Anchor(const lsWorld* world, lsEditRef ref);

// ---------------------------------------------------------------------------------------------------------------------
// Changes. Each returns whether the world changed.

/// Moves the object (or point) by delta metres. A whole object moves rigidly (a polygon, a wall chain, a path with
/// its vehicles' start positions, a mover with its pivot). Refused (false, nothing changed) when the result would
/// be invalid: a point landing on a neighbour of its chain (zero-length segment) or a non-finite coordinate. A
/// coordinate and a delta that are short decimals (at most 9 digits after the point, as a grid's are) give the double
/// nearest their decimal sum (10 + 0.85 lands on 10.85; 10 + (20.85 - 20) in doubles is 10.850000000000001), so a
/// save writes what was drawn.
bool lsEdit_Translate(lsWorld* world, lsEditRef ref, lsVec2 delta);
/// Moves the object so its anchor lands on position (drags: position = anchorAtPress + mouse - mouseAtPress); its
/// other points move by position - anchor, in decimals as lsEdit_Translate's when all three are short decimals.
bool lsEdit_MoveTo(lsWorld* world, lsEditRef ref, lsVec2 position);

/// The wall corners at exactly the place of `corner` (an ls_editWallPoint), `corner` itself first: where walls meet,
/// so a drag can move the joint without tearing the walls apart. Writes at most capacity refs into out and returns
/// how many there are in all.
int lsEdit_JoinedCorners(const lsWorld* world, lsEditRef corner, lsEditRef* out, int capacity);
/// Moves several wall corners (valid ls_editWallPoint refs) to one position together, all or nothing: refused (false,
/// nothing changed) when any of their walls would get a zero-length segment.
bool lsEdit_MoveCorners(lsWorld* world, const lsEditRef* corners, int count, lsVec2 position);

/// Appends a two-point wall from a to b ({"from", "to"} in the file, default reflectance). Returns its index, or
/// -1 (nothing added) when a == b or a point is not finite.
int lsEdit_AddWall(lsWorld* world, lsVec2 a, lsVec2 b);

/// Removes the object. A wall corner is removed from its chain (the chain must keep two points, three when closed,
/// else the whole wall goes); a path point likewise (a path keeps at least two points, else nothing happens).
/// A path takes its vehicles with it; a moving wall's handle removes the moving wall. A robot is removed (the others
/// keep their order) unless it is the last one (false: a world always has a robot).
bool lsEdit_Delete(lsWorld* world, lsEditRef ref);

/// Adds a robot with the settings of robot `from` (footprint, drive limits, lidar, controller, heading), a new id
/// ("amr3" gives "amr4", or the next number free; "forklift" gives "forklift2") and a lidar seed of its own (one
/// above every robot's), at the free place nearest `near`: rings of candidate places one robot apart around near
/// (out to 40 rings), the first whose bounding circle, with 5 cm to spare, keeps clear of walls, boxes, polygons,
/// moving walls at time 0 and the vehicles' and robots' start places, and that a straight line from near reaches
/// without crossing a wall or solid (near inside a box or polygon, from where no line leaves: the first free
/// place). Each candidate is rounded to a grid of `snap` metres first (0: not rounded), so the file gets short
/// numbers. Returns the new robot's index (the last), or -1 (nothing added) when no place is free, near is not
/// finite or the world has LS_MAX_ROBOTS robots.
int lsEdit_AddRobot(lsWorld* world, int from, lsVec2 near, double snap);

/// x on a grid of `step` metres (> 0), as the editor snaps: k / (steps per metre) for grids finer than a metre, so a
/// place on the 5 cm grid is the double nearest 2.15 (prints as "2.15"), not 43 * 0.05 = 2.1500000000000004.
double lsSnapCoordinate(double x, double step);

/// Default half-width of the gap a knife cut leaves either side of the crossing, metres.
#define LS_KNIFE_GAP 0.05

/// The knife: the mouse moved from m0 to m1 during one frame; every wall segment that the moving point crosses is
/// cut. The crossing is the exact moving-point test (lsSweepPointSegment with a static segment), so a path that
/// passes exactly through a corner cuts there once. At each crossing the chain is split and `gap` metres of wall
/// are removed either side along the chain (clamped to a quarter of the crossed segment's length, so a cut never
/// swallows a short segment), leaving a visible opening; gap 0 splits without removing anything. A closed chain
/// cut once becomes one open chain that starts and ends at the opening. Pieces keep the wall's reflectance and
/// stay in the wall's place in the array (later walls shift). Map walls are not cut (lsEdit_IsMapWall). Returns the
/// number of crossings cut (0: no change).
int lsEdit_Cut(lsWorld* world, lsVec2 m0, lsVec2 m1, double gap);

// ---------------------------------------------------------------------------------------------------------------------
// Undo and redo: snapshots of the whole world (lsCloneWorld), bounded in count and in bytes so a huge world cannot
// eat the memory; the oldest snapshots are dropped first.

/// The history (opaque). Create with lsCreateUndoStack, destroy with lsDestroyUndoStack.
typedef struct lsUndoStack lsUndoStack;

/// A history of at most maxSteps undo steps (>= 1) holding at most maxBytes of snapshots (0: no byte limit; the
/// newest snapshot is always kept). Destroy with lsDestroyUndoStack.
lsUndoStack* lsCreateUndoStack(int maxSteps, size_t maxBytes);
/// Frees the history and its snapshots. NULL is allowed.
void lsDestroyUndoStack(lsUndoStack* stack);
/// Records the world as it was before an edit. Takes ownership of `before` (from lsCloneWorld) and clears redo.
/// Usage: before = lsCloneWorld(w); if (edit(w)) lsUndoStack_Push(s, before); else lsDestroyWorld(before);
void lsUndoStack_Push(lsUndoStack* stack, lsWorld* before);
/// Puts world back as it was before the last edit (the current contents go to redo). False when there is none.
bool lsUndoStack_Undo(lsUndoStack* stack, lsWorld* world);
/// Re-applies the last undone edit. False when there is none.
bool lsUndoStack_Redo(lsUndoStack* stack, lsWorld* world);
/// Drops every snapshot.
void lsUndoStack_Clear(lsUndoStack* stack);
/// Steps available to undo and to redo.
int lsUndoStack_UndoCount(const lsUndoStack* stack);
int lsUndoStack_RedoCount(const lsUndoStack* stack);
/// Exchanges the contents of two worlds (their arrays change owner; nothing is copied). The editor uses it to put a
/// snapshot back in place (undo, cancelling a drag) while the caller's lsWorld pointer stays the same.
void lsEdit_SwapWorlds(lsWorld* a, lsWorld* b);
/// Approximate heap bytes a world's definitions take (what a snapshot costs).
size_t lsEdit_WorldBytes(const lsWorld* world);
