// lidarsim front end: the in-window world editor (see editor.h). Input becomes core/edit.h operations; the overlay
// is drawn with SDL2_gfx, in the renderer's colours (lsColor) and with the core's clip (lsAABB_ClipSegment).
#include "app/editor.h"

#include "app/raster.h"
#include "lidarsim/geometry.h"

#include <SDL2/SDL2_gfxPrimitives.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Undo history bounds: 100 steps, and at most 256 MiB of snapshots (a city-sized world is a few MiB each).
#define LS_EDITOR_UNDO_STEPS 100
#define LS_EDITOR_UNDO_BYTES ((size_t)256 << 20)
// How near the pointer must be to grab something, and how far it must move before a press becomes a drag.
#define LS_EDITOR_PICK_PIXELS 7.0
#define LS_EDITOR_DRAG_PIXELS 4.0
#define LS_EDITOR_TRAIL 48
// The grids drawn and dragged points snap to, metres ([ and ] step through them; 0 is off). Default 5 cm: short
// numbers in the file, fine enough for a room.
static const double s_snapSteps[] = {0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0};
#define LS_EDITOR_DEFAULT_SNAP 2
#define LS_EDITOR_JOINED 64

typedef enum DragMode
{
    drag_none = 0,
    drag_move,  // moving the object under the pointer at the press
    drag_wall,  // drawing a new wall from the press point
    drag_knife, // cutting walls along the pointer's path
} DragMode;

struct lsEditor
{
    bool active;
    bool knife;
    lsEditRef selection;
    bool mouseKnown; // a mouse event has told where the pointer is
    lsUndoStack* undo;

    DragMode drag;
    lsWorld* before;   // the world at the press (owned): pushed to undo on release if the drag changed it
    lsEditRef dragRef; // drag_move: what moves
    lsEditRef joined[LS_EDITOR_JOINED]; // drag_move of a wall corner: it and the corners of walls that meet there
    int joinedCount;
    lsVec2 pressWorld;    // pointer at the press, world metres
    lsVec2 pressScreen;   // and in pixels
    lsVec2 anchorAtPress; // drag_move: the object's anchor at the press
    lsVec2 wallStart;     // drag_wall: the first end (snapped to a corner when near one)
    bool dragging;        // the pointer has moved far enough from the press to count as a drag
    bool changed;         // the drag has changed the world
    int cuts;             // drag_knife: crossings cut so far in this stroke

    lsVec2 mouseWorld;             // the pointer now, world metres
    lsVec2 mouseScreen;            // and in pixels
    lsVec2 trail[LS_EDITOR_TRAIL]; // drag_knife: the pointer's recent positions (world), oldest first
    int trailCount;
    int snap; // index into s_snapSteps

    const lsRobotState* live; // the sim's robots where they are now (lsEditor_SetLiveRobots), or NULL
    int windowRobot;          // the robot the window has selected (lsEditor_SetWindowRobot)
    int liveCount;
};

lsEditor* lsCreateEditor(void)
{
    lsEditor* editor = lsAllocZero(1, sizeof(lsEditor));
    editor->undo = lsCreateUndoStack(LS_EDITOR_UNDO_STEPS, LS_EDITOR_UNDO_BYTES);
    editor->selection = lsEditRefNone();
    editor->snap = LS_EDITOR_DEFAULT_SNAP;
    return editor;
}

double lsEditor_GetSnap(const lsEditor* editor) { return s_snapSteps[editor->snap]; }

// Where a drawn or dragged point lands: on the grid, unless the grid is off or Shift is held.
static lsVec2 SnapToGrid(const lsEditor* editor, lsVec2 p)
{
    double step = lsEditor_GetSnap(editor);
    if (step <= 0.0 || (SDL_GetModState() & KMOD_SHIFT) != 0)
        return p;
    lsVec2 snapped = lsV(lsSnapCoordinate(p.x, step), lsSnapCoordinate(p.y, step));
    return lsIsValidVec2(snapped) ? snapped : p;
}

void lsDestroyEditor(lsEditor* editor)
{
    if (editor == NULL)
        return;
    lsDestroyWorld(editor->before);
    lsDestroyUndoStack(editor->undo);
    lsFree(editor, sizeof(lsEditor));
}

bool lsEditor_IsActive(const lsEditor* editor) { return editor->active; }

lsEditRef lsEditor_GetSelection(const lsEditor* editor) { return editor->selection; }

void lsEditor_Select(lsEditor* editor, const lsWorld* world, lsEditRef ref)
{
    editor->selection = lsEdit_IsValidRef(world, ref) ? ref : lsEditRefNone();
}

int lsEditor_UndoCount(const lsEditor* editor) { return lsUndoStack_UndoCount(editor->undo); }

int lsEditor_RedoCount(const lsEditor* editor) { return lsUndoStack_RedoCount(editor->undo); }

void lsEditor_SetLiveRobots(lsEditor* editor, const lsRobotState* robots, int count)
{
    editor->live = count > 0 ? robots : NULL;
    editor->liveCount = robots != NULL && count > 0 ? count : 0;
}

void lsEditor_SetWindowRobot(lsEditor* editor, int index) { editor->windowRobot = index; }

// A digest of every robot's id and start pose, to tell whether an undo, redo or delete changed any (robotChanged).
static uint64_t RobotsDigest(const lsWorld* world)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        const lsRobotDef* r = lsWorld_GetRobot(world, i);
        double values[3] = {r->position.x, r->position.y, r->angle};
        for (int k = 0; k < 3; ++k)
        {
            uint64_t bits;
            memcpy(&bits, &values[k], sizeof bits);
            h = (h ^ bits) * 0x100000001B3ull;
        }
        for (const char* c = r->id; *c != '\0'; ++c)
            h = (h ^ (unsigned char)*c) * 0x100000001B3ull;
        h = (h ^ 0xff) * 0x100000001B3ull;
    }
    return h;
}

// Ends the drag in progress. commit: keep its changes (one undo step when it changed the world); otherwise put the
// world back as it was at the press. Returns true when the world changed back.
static bool EndDrag(lsEditor* editor, lsWorld* world, bool commit)
{
    bool restored = false;
    if (editor->before != NULL)
    {
        if (editor->changed && commit)
        {
            lsUndoStack_Push(editor->undo, editor->before);
        }
        else
        {
            if (editor->changed && world != NULL)
            {
                lsEdit_SwapWorlds(world, editor->before);
                restored = true;
            }
            lsDestroyWorld(editor->before);
        }
    }
    editor->before = NULL;
    editor->drag = drag_none;
    editor->dragging = false;
    editor->changed = false;
    editor->cuts = 0;
    editor->trailCount = 0;
    return restored;
}

bool lsEditor_SetActive(lsEditor* editor, bool active, lsWorld* world)
{
    bool restored = false;
    if (!active && editor->drag != drag_none)
        restored = EndDrag(editor, world, false);
    editor->active = active;
    editor->knife = false;
    return restored;
}

void lsEditor_WorldReplaced(lsEditor* editor)
{
    // The history and the selection name objects by index in the old world; none of it applies to the new one.
    lsDestroyWorld(editor->before);
    editor->before = NULL;
    EndDrag(editor, NULL, false);
    lsUndoStack_Clear(editor->undo);
    editor->selection = lsEditRefNone();
}

static void Message(lsEditResult* out, bool failed, const char* format, ...) __attribute__((format(printf, 3, 4)));

static void Message(lsEditResult* out, bool failed, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(out->message, sizeof out->message, format, args);
    va_end(args);
    out->failed = failed;
}

// Why a map's wall does not move (lsEdit_IsMapWall), and what to do instead.
static void MapWallMessage(const lsWorld* world, lsEditResult* out)
{
    const char* slash = strrchr(world->map.yamlFile, '/');
    Message(out, true,
            "a wall of the map %s: not editable (edit the map's image, or `lidarsim import` the map to edit its "
            "walls; Shift+drag draws a new wall from here)",
            slash != NULL ? slash + 1 : world->map.yamlFile);
}

// A short description of a reference for the HUD ("wall 3", "corner 2 of wall 3").
static void Describe(const lsWorld* world, lsEditRef ref, char* text, size_t capacity)
{
    switch (ref.kind)
    {
    case ls_editWall:
        snprintf(text, capacity, "wall %d (%d points%s)", ref.index, world->walls[ref.index].pointCount,
                 world->walls[ref.index].closed ? ", closed" : "");
        break;
    case ls_editWallPoint:
    case ls_editPathPoint:
        snprintf(text, capacity, "point %d of %s %d", ref.sub, ref.kind == ls_editWallPoint ? "wall" : "path",
                 ref.index);
        break;
    case ls_editMoverPoint:
        snprintf(text, capacity, "%s of moving wall %d", ref.sub == 0 ? "end a" : (ref.sub == 1 ? "end b" : "pivot"),
                 ref.index);
        break;
    case ls_editRobot:
        snprintf(text, capacity, "robot \"%.64s\"", lsWorld_GetRobot(world, ref.index)->id);
        break;
    default:
        snprintf(text, capacity, "%s %d", lsEditKind_Name(ref.kind), ref.index);
        break;
    }
}

// Undo or redo one step; the selection goes, since it may name an object the step removes or renumbers.
static void UndoRedo(lsEditor* editor, lsWorld* world, bool redo, lsEditResult* out)
{
    if (editor->drag != drag_none && EndDrag(editor, world, false))
        out->worldChanged = true;
    uint64_t robots = RobotsDigest(world);
    bool done = redo ? lsUndoStack_Redo(editor->undo, world) : lsUndoStack_Undo(editor->undo, world);
    if (!done)
    {
        Message(out, false, "nothing to %s", redo ? "redo" : "undo");
        return;
    }
    editor->selection = lsEditRefNone();
    out->worldChanged = true;
    out->undone = true;
    out->redone = redo;
    out->robotChanged = robots != RobotsDigest(world);
    Message(out, false, "%s (%d more to undo, %d to redo)", redo ? "redo" : "undo", lsUndoStack_UndoCount(editor->undo),
            lsUndoStack_RedoCount(editor->undo));
}

// Where robot i is now: the sim's pose when the window gave it (lsEditor_SetLiveRobots), else its start pose.
static lsVec2 RobotNow(const lsEditor* editor, const lsWorld* world, int i)
{
    return editor->live != NULL && i < editor->liveCount ? editor->live[i].position
                                                         : lsWorld_GetRobot(world, i)->position;
}

// Insert / I: a copy of the selected robot (else of the one the window has selected, Tab's) at the free place nearest
// it (no robot selected: nearest the pointer), selected, so the next drag moves it and Delete takes it back out.
static void AddRobot(lsEditor* editor, lsWorld* world, lsEditResult* out)
{
    if (editor->drag != drag_none)
        out->worldChanged = EndDrag(editor, world, true) || out->worldChanged;
    bool fromSelection = editor->selection.kind == ls_editRobot && lsEdit_IsValidRef(world, editor->selection);
    bool windowValid = editor->windowRobot >= 0 && editor->windowRobot < lsWorld_RobotCount(world);
    int from = fromSelection ? editor->selection.index : (windowValid ? editor->windowRobot : 0);
    lsVec2 near = fromSelection || !editor->mouseKnown ? RobotNow(editor, world, from) : editor->mouseWorld;
    lsWorld* before = lsCloneWorld(world);
    // On the grid (unless Shift is held), as a dragged robot would land.
    double snap = (SDL_GetModState() & KMOD_SHIFT) != 0 ? 0.0 : lsEditor_GetSnap(editor);
    int index = lsEdit_AddRobot(world, from, near, snap);
    if (index < 0)
    {
        lsDestroyWorld(before);
        Message(out, true, "no free place for a robot near (%.2f, %.2f)", near.x, near.y);
        return;
    }
    lsUndoStack_Push(editor->undo, before);
    editor->selection = lsMakeEditRef(ls_editRobot, index, 0);
    out->worldChanged = true;
    out->robotChanged = true;
    out->robotPicked = true;
    out->robot = index;
    const lsRobotDef* added = lsWorld_GetRobot(world, index);
    Message(out, false, "added robot \"%.64s\" (a copy of \"%.64s\") at (%.2f, %.2f); %d robots", added->id,
            lsWorld_GetRobot(world, from)->id, added->position.x, added->position.y, lsWorld_RobotCount(world));
}

static bool HandleKey(lsEditor* editor, const SDL_KeyboardEvent* key, lsWorld* world, const char* worldPath,
                      lsEditResult* out)
{
    SDL_Keycode sym = key->keysym.sym;
    Uint16 mod = key->keysym.mod;
    bool ctrl = (mod & (KMOD_CTRL | KMOD_GUI)) != 0;
    bool shift = (mod & KMOD_SHIFT) != 0;
    bool alt = (mod & KMOD_ALT) != 0;

    // Undo, redo and save work in and out of edit mode: they are unambiguous and the window binds no Ctrl keys.
    if (ctrl && !alt)
    {
        if (sym == SDLK_z)
        {
            UndoRedo(editor, world, shift, out);
            return true;
        }
        if (sym == SDLK_y)
        {
            UndoRedo(editor, world, true, out);
            return true;
        }
        if (sym == SDLK_s)
        {
            // The window saves: it holds the file's text, which the save keeps as its author wrote it.
            if (key->repeat)
                return true;
            if (worldPath == NULL || worldPath[0] == '\0')
                Message(out, true, "not saved: this world has no file (start lidarsim with a WORLD.json)");
            else
                out->saveRequested = true;
            return true;
        }
        return false;
    }
    if (alt)
        return false;
    if (sym == SDLK_e)
    {
        if (key->repeat)
            return true;
        out->worldChanged = lsEditor_SetActive(editor, !editor->active, world);
        Message(out, false, "%s",
                editor->active ? "edit mode: drag to draw walls or move things, K knife, E to leave" : "edit mode off");
        return true;
    }
    if (!editor->active)
        return false;

    switch (sym)
    {
    case SDLK_LEFTBRACKET:
    case SDLK_RIGHTBRACKET:
    {
        int count = (int)(sizeof s_snapSteps / sizeof s_snapSteps[0]);
        int next = editor->snap + (sym == SDLK_RIGHTBRACKET ? 1 : -1);
        editor->snap = next < 0 ? 0 : (next >= count ? count - 1 : next);
        if (editor->snap == 0)
            Message(out, false, "snap off (] turns it on)");
        else
            Message(out, false, "snap to a %g m grid ([ finer, ] coarser, Shift: free)", s_snapSteps[editor->snap]);
        return true;
    }
    case SDLK_k:
        if (!key->repeat)
        {
            if (editor->drag != drag_none)
                out->worldChanged = EndDrag(editor, world, true) || out->worldChanged;
            editor->knife = !editor->knife;
            Message(out, false, "%s", editor->knife ? "knife: drag across walls to cut them" : "knife off");
        }
        return true;
    case SDLK_ESCAPE:
        if (editor->drag != drag_none)
        {
            out->worldChanged = EndDrag(editor, world, false);
            Message(out, false, "cancelled");
        }
        else if (editor->knife)
        {
            editor->knife = false;
            Message(out, false, "knife off");
        }
        else if (editor->selection.kind != ls_editNone)
        {
            editor->selection = lsEditRefNone();
            Message(out, false, "nothing selected");
        }
        else
        {
            lsEditor_SetActive(editor, false, world);
            Message(out, false, "edit mode off");
        }
        return true;
    case SDLK_INSERT:
    case SDLK_i:
        if (!key->repeat)
            AddRobot(editor, world, out);
        return true;
    case SDLK_DELETE:
    case SDLK_BACKSPACE:
    {
        if (editor->drag != drag_none || !lsEdit_IsValidRef(world, editor->selection))
        {
            editor->selection = lsEditRefNone();
            return true;
        }
        if (lsEdit_IsMapWall(world, editor->selection))
        {
            MapWallMessage(world, out);
            return true;
        }
        char what[96];
        Describe(world, editor->selection, what, sizeof what);
        lsWorld* before = lsCloneWorld(world);
        if (lsEdit_Delete(world, editor->selection))
        {
            lsUndoStack_Push(editor->undo, before);
            out->worldChanged = true;
            out->robotChanged = editor->selection.kind == ls_editRobot;
            Message(out, false, "deleted %s", what);
        }
        else
        {
            lsDestroyWorld(before);
            Message(out, true, "cannot delete %s%s", what,
                    editor->selection.kind == ls_editRobot ? " (a world always has one robot)"
                                                           : " (it would leave an invalid wall or path)");
        }
        editor->selection = lsEditRefNone();
        return true;
    }
    default:
        return false;
    }
}

// The wall corner within the pick tolerance of p, or p itself: new walls join existing corners exactly.
static lsVec2 SnapToCorner(const lsWorld* world, lsVec2 p, double tolerance)
{
    lsVec2 best = p;
    double bestDistance = tolerance;
    for (int i = 0; i < world->wallCount; ++i)
    {
        for (int k = 0; k < world->walls[i].pointCount; ++k)
        {
            double d = lsDistance(world->walls[i].points[k], p);
            if (d <= bestDistance)
            {
                best = world->walls[i].points[k];
                bestDistance = d;
            }
        }
    }
    return best;
}

// A wall end: onto a wall corner within tolerance (chains close exactly), else onto the grid.
static lsVec2 SnapWallEnd(const lsEditor* editor, const lsWorld* world, lsVec2 p, double tolerance)
{
    lsVec2 corner = SnapToCorner(world, p, tolerance);
    return lsVecEqual(corner, p) ? SnapToGrid(editor, p) : corner;
}

static void PushTrail(lsEditor* editor, lsVec2 p)
{
    if (editor->trailCount == LS_EDITOR_TRAIL)
    {
        memmove(editor->trail, editor->trail + 1, (LS_EDITOR_TRAIL - 1) * sizeof(lsVec2));
        editor->trailCount -= 1;
    }
    editor->trail[editor->trailCount++] = p;
}

// The robot whose body, where the sim has it now, holds p (within tolerance); of several the nearest centre. -1
// when none, or when the window gave no live robots or a count that does not match the world (a stale sim).
static int LiveRobotAt(const lsEditor* editor, const lsWorld* world, lsVec2 p, double tolerance)
{
    if (editor->live == NULL || editor->liveCount != lsWorld_RobotCount(world))
        return -1;
    int best = -1;
    double bestDistance = 0.0;
    for (int i = 0; i < editor->liveCount; ++i)
    {
        const lsRobotState* r = editor->live + i;
        double d = lsDistance(r->position, p);
        // The bounding circle: a polygon robot is grabbed near its corners too (a few pixels' slack at worst).
        if (d <= r->radius + tolerance && (best < 0 || d < bestDistance))
        {
            best = i;
            bestDistance = d;
        }
    }
    return best;
}

static void Press(lsEditor* editor, const lsCamera* camera, lsWorld* world, SDL_Keymod mod, lsEditResult* out)
{
    double tolerance = lsCamera_ToMetres(camera, LS_EDITOR_PICK_PIXELS);
    editor->before = lsCloneWorld(world);
    editor->pressWorld = editor->mouseWorld;
    editor->pressScreen = editor->mouseScreen;
    editor->dragging = false;
    editor->changed = false;
    editor->cuts = 0;
    editor->trailCount = 0;
    if (editor->knife)
    {
        editor->drag = drag_knife;
        PushTrail(editor, editor->mouseWorld);
        return;
    }
    lsEditRef ref = (mod & KMOD_SHIFT) != 0 ? lsEditRefNone() : lsEdit_Pick(world, editor->mouseWorld, tolerance);
    lsVec2 anchor = ref.kind != ls_editNone ? lsEdit_Anchor(world, ref) : lsV(0.0, 0.0);
    bool handle = ref.kind == ls_editWallPoint || ref.kind == ls_editPathPoint || ref.kind == ls_editMoverPoint;
    int live = (mod & KMOD_SHIFT) != 0 || handle ? -1 : LiveRobotAt(editor, world, editor->mouseWorld, tolerance);
    if (live >= 0)
    {
        // The robot as the sim shows it now, driven away from its start: the drag puts its start pose (and so the
        // robot, at rest) where it is dropped.
        ref = lsMakeEditRef(ls_editRobot, live, 0);
        anchor = editor->live[live].position;
    }
    if (ref.kind == ls_editRobot)
    {
        out->robotPicked = true;
        out->robot = ref.index;
    }
    if (lsEdit_IsMapWall(world, ref))
    {
        // Selected, so it shows which wall is meant, but never dragged: the save could not keep the move.
        EndDrag(editor, world, false);
        editor->selection = ref;
        MapWallMessage(world, out);
        return;
    }
    if (ref.kind != ls_editNone)
    {
        editor->drag = drag_move;
        editor->dragRef = ref;
        editor->joined[0] = ref;
        editor->joinedCount = 1;
        if (ref.kind == ls_editWallPoint && (mod & KMOD_ALT) == 0)
        {
            // Walls that meet at this corner move with it (Alt drags the one corner away from the joint).
            int count = lsEdit_JoinedCorners(world, ref, editor->joined, LS_EDITOR_JOINED);
            editor->joinedCount = count < LS_EDITOR_JOINED ? count : LS_EDITOR_JOINED;
        }
        editor->anchorAtPress = anchor;
        editor->selection = ref;
        char what[96];
        Describe(world, ref, what, sizeof what);
        Message(out, false, "selected %s", what);
        return;
    }
    // Empty space (or Shift held): a new wall starts here, joined to a corner when the press is on one.
    editor->drag = drag_wall;
    editor->wallStart = SnapWallEnd(editor, world, editor->mouseWorld, tolerance);
}

static void Motion(lsEditor* editor, const lsCamera* camera, lsWorld* world, lsEditResult* out)
{
    if (!editor->dragging && lsDistance(editor->mouseScreen, editor->pressScreen) >= LS_EDITOR_DRAG_PIXELS)
    {
        editor->dragging = true;
    }
    switch (editor->drag)
    {
    case drag_move:
        if (editor->dragging && lsEdit_IsValidRef(world, editor->dragRef))
        {
            lsVec2 target =
                SnapToGrid(editor, lsAdd(editor->anchorAtPress, lsSub(editor->mouseWorld, editor->pressWorld)));
            bool moved = editor->joinedCount > 1
                             ? lsEdit_MoveCorners(world, editor->joined, editor->joinedCount, target)
                             : lsEdit_MoveTo(world, editor->dragRef, target);
            if (moved)
            {
                editor->changed = true;
                out->worldChanged = true;
                out->robotChanged = editor->dragRef.kind == ls_editRobot;
            }
        }
        break;
    case drag_knife:
    {
        lsVec2 last = editor->trail[editor->trailCount - 1];
        if (lsVecEqual(last, editor->mouseWorld))
            break;
        int cuts = lsEdit_Cut(world, last, editor->mouseWorld, LS_KNIFE_GAP);
        if (cuts > 0)
        {
            editor->cuts += cuts;
            editor->changed = true;
            out->worldChanged = true;
            editor->selection = lsEditRefNone(); // wall indices shift when a wall becomes several
        }
        PushTrail(editor, editor->mouseWorld);
        break;
    }
    case drag_wall:
    case drag_none:
        break;
    }
    (void)camera;
}

static void Release(lsEditor* editor, const lsCamera* camera, lsWorld* world, lsEditResult* out)
{
    switch (editor->drag)
    {
    case drag_move:
        if (editor->changed)
        {
            char what[96];
            Describe(world, editor->dragRef, what, sizeof what);
            Message(out, false, "moved %s", what);
        }
        EndDrag(editor, world, true);
        break;
    case drag_knife:
        if (editor->cuts > 0)
            Message(out, false, "cut %d wall crossing%s", editor->cuts, editor->cuts == 1 ? "" : "s");
        EndDrag(editor, world, true);
        break;
    case drag_wall:
    {
        if (!editor->dragging)
        {
            // A click on empty space clears the selection.
            editor->selection = lsEditRefNone();
            EndDrag(editor, world, true);
            break;
        }
        lsVec2 end = SnapWallEnd(editor, world, editor->mouseWorld, lsCamera_ToMetres(camera, LS_EDITOR_PICK_PIXELS));
        int index = lsEdit_AddWall(world, editor->wallStart, end);
        if (index >= 0)
        {
            editor->changed = true;
            out->worldChanged = true;
            editor->selection = lsMakeEditRef(ls_editWall, index, 0);
            Message(out, false, "added wall %d, %.2f m", index, lsDistance(editor->wallStart, end));
        }
        EndDrag(editor, world, true);
        break;
    }
    case drag_none:
        break;
    }
}

bool lsEditor_HandleEvent(lsEditor* editor, const SDL_Event* event, const lsCamera* camera, lsWorld* world,
                          const char* worldPath, lsEditResult* out)
{
    LS_ASSERT(editor != NULL && event != NULL && camera != NULL && world != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    // Whatever happened to the world since the last event (a reload the window forgot to report), never use an
    // index that is out of range.
    if (editor->selection.kind != ls_editNone && !lsEdit_IsValidRef(world, editor->selection))
    {
        editor->selection = lsEditRefNone();
    }

    switch (event->type)
    {
    case SDL_KEYDOWN:
        return HandleKey(editor, &event->key, world, worldPath, out);
    case SDL_MOUSEMOTION:
        editor->mouseScreen = lsV(event->motion.x, event->motion.y);
        editor->mouseWorld = lsCamera_ScreenToWorld(camera, editor->mouseScreen);
        editor->mouseKnown = true;
        // The hover highlight is found in lsEditor_Draw, once a frame, not on every one of many motion events.
        if (!editor->active || editor->drag == drag_none)
            return false;
        Motion(editor, camera, world, out);
        return true;
    case SDL_MOUSEBUTTONDOWN:
        if (!editor->active || event->button.button != SDL_BUTTON_LEFT)
            return false;
        editor->mouseScreen = lsV(event->button.x, event->button.y);
        editor->mouseWorld = lsCamera_ScreenToWorld(camera, editor->mouseScreen);
        editor->mouseKnown = true;
        if (editor->drag != drag_none)
            EndDrag(editor, world, true); // a missed button-up (focus lost)
        Press(editor, camera, world, SDL_GetModState(), out);
        return true;
    case SDL_MOUSEBUTTONUP:
        if (event->button.button != SDL_BUTTON_LEFT || editor->drag == drag_none)
            return false;
        editor->mouseScreen = lsV(event->button.x, event->button.y);
        editor->mouseWorld = lsCamera_ScreenToWorld(camera, editor->mouseScreen);
        Motion(editor, camera, world, out);
        Release(editor, camera, world, out);
        return true;
    default:
        return false;
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Drawing

static const lsColor s_selectColor = {255, 170, 0, 255};
static const lsColor s_hoverColor = {255, 235, 120, 170};
static const lsColor s_ghostColor = {120, 220, 255, 200};
static const lsColor s_newWallColor = {120, 255, 140, 255};
static const lsColor s_knifeColor = {255, 60, 60, 255};
static const lsColor s_labelColor = {255, 255, 255, 255};
static const lsColor s_labelBack = {0, 0, 0, 170};

// Screen coordinates go to SDL2_gfx as Sint16; clipping first keeps far-off points from wrapping around.
static Sint16 ToS16(double v)
{
    if (v < -30000.0)
        return -30000;
    if (v > 30000.0)
        return 30000;
    return (Sint16)lround(v);
}

// A world segment, width 1 or 2 pixels.
static void Line(SDL_Renderer* renderer, const lsCamera* camera, lsVec2 wa, lsVec2 wb, lsColor c, bool thick)
{
    lsVec2 a = lsCamera_WorldToScreen(camera, wa), b = lsCamera_WorldToScreen(camera, wb);
    // The viewport grown by a margin, so thick lines and handles at the edge are drawn whole.
    lsAABB guard = {{-16.0, -16.0}, {camera->width + 16.0, camera->height + 16.0}};
    if (!lsAABB_ClipSegment(guard, &a, &b))
        return;
    if (thick)
    {
        thickLineRGBA(renderer, ToS16(a.x), ToS16(a.y), ToS16(b.x), ToS16(b.y), 3, c.r, c.g, c.b, c.a);
        return;
    }
    lineRGBA(renderer, ToS16(a.x), ToS16(a.y), ToS16(b.x), ToS16(b.y), c.r, c.g, c.b, c.a);
}

static void Polyline(SDL_Renderer* renderer, const lsCamera* camera, const lsVec2* points, int count, bool closed,
                     lsColor c, bool thick)
{
    lsAABB view = lsCamera_ViewBounds(camera);
    int segments = closed ? count : count - 1;
    for (int i = 0; i < segments; ++i)
    {
        lsVec2 a = points[i], b = points[(i + 1) % count];
        if (lsAABB_Overlaps(view, lsAABB_OfSegment(a, b)))
            Line(renderer, camera, a, b, c, thick);
    }
}

// A square handle of half-size h pixels around a world point.
static void Handle(SDL_Renderer* renderer, const lsCamera* camera, lsVec2 p, int h, lsColor c, bool filled)
{
    lsVec2 s = lsCamera_WorldToScreen(camera, p);
    if (s.x < -h || s.y < -h || s.x > camera->width + h || s.y > camera->height + h)
        return;
    Sint16 x = ToS16(s.x), y = ToS16(s.y);
    if (filled)
    {
        boxRGBA(renderer, (Sint16)(x - h), (Sint16)(y - h), (Sint16)(x + h), (Sint16)(y + h), c.r, c.g, c.b, c.a);
    }
    else
    {
        rectangleRGBA(renderer, (Sint16)(x - h), (Sint16)(y - h), (Sint16)(x + h), (Sint16)(y + h), c.r, c.g, c.b, c.a);
    }
}

// A world circle's outline (radius in metres), at least 3 pixels so tiny things stay visible.
static void Circle(SDL_Renderer* renderer, const lsCamera* camera, lsVec2 center, double radius, lsColor c, bool thick)
{
    lsVec2 s = lsCamera_WorldToScreen(camera, center);
    double r = lsFmax(lsCamera_ToPixels(camera, radius), 3.0);
    if (s.x + r < 0.0 || s.y + r < 0.0 || s.x - r > camera->width || s.y - r > camera->height || r > 30000.0)
        return;
    for (int k = 0; k < (thick ? 2 : 1); ++k)
    {
        aacircleRGBA(renderer, ToS16(s.x), ToS16(s.y), (Sint16)lround(r + k), c.r, c.g, c.b, c.a);
    }
}

static void RobotGhost(SDL_Renderer* renderer, const lsCamera* camera, const lsRobotDef* robot, lsColor c, bool thick)
{
    lsTransform xf = {robot->position, lsMakeRot(robot->angle)};
    double reach = robot->radius;
    if (robot->footprintCount >= 3)
    {
        lsVec2 outline[LS_MAX_POLYGON_VERTICES];
        reach = 0.0;
        for (int i = 0; i < robot->footprintCount; ++i)
        {
            outline[i] = lsTransformPoint(xf, robot->footprint[i]);
            reach = lsFmax(reach, lsLength(robot->footprint[i]));
        }
        Polyline(renderer, camera, outline, robot->footprintCount, true, c, thick);
    }
    else
    {
        Circle(renderer, camera, robot->position, robot->radius, c, thick);
    }
    Line(renderer, camera, robot->position, lsTransformPoint(xf, lsV(reach, 0.0)), c, thick);
}

// The outline of what ref names; handles on its points when `handles`.
static void DrawRef(SDL_Renderer* renderer, const lsCamera* camera, const lsWorld* world, lsEditRef ref, lsColor c,
                    bool thick, bool handles)
{
    if (!lsEdit_IsValidRef(world, ref))
        return;
    switch (ref.kind)
    {
    case ls_editWall:
    case ls_editWallPoint:
    {
        const lsWallDef* wall = world->walls + ref.index;
        Polyline(renderer, camera, wall->points, wall->pointCount, wall->closed, c, thick && ref.kind == ls_editWall);
        if (handles && wall->pointCount <= 4096)
        {
            for (int i = 0; i < wall->pointCount; ++i)
            {
                Handle(renderer, camera, wall->points[i], 3, c, false);
            }
        }
        if (ref.kind == ls_editWallPoint)
            Handle(renderer, camera, wall->points[ref.sub], 5, c, true);
        break;
    }
    case ls_editPath:
    case ls_editPathPoint:
    {
        const lsPathDef* path = world->paths + ref.index;
        Polyline(renderer, camera, path->points, path->pointCount, path->closed, c, thick && ref.kind == ls_editPath);
        if (handles && path->pointCount <= 4096)
        {
            for (int i = 0; i < path->pointCount; ++i)
            {
                Handle(renderer, camera, path->points[i], 3, c, false);
            }
        }
        if (ref.kind == ls_editPathPoint)
            Handle(renderer, camera, path->points[ref.sub], 5, c, true);
        break;
    }
    case ls_editTarget:
        Circle(renderer, camera, world->targets[ref.index].center, world->targets[ref.index].radius, c, thick);
        break;
    case ls_editVehicle:
        Circle(renderer, camera, world->vehicles[ref.index].position, world->vehicles[ref.index].radius, c, thick);
        break;
    case ls_editBox:
    {
        const lsBoxDef* def = world->boxes + ref.index;
        lsBox box = lsMakeBox(def->center, def->size, def->angle);
        lsVec2 corners[4];
        lsBox_Corners(&box, corners);
        Polyline(renderer, camera, corners, 4, true, c, thick);
        break;
    }
    case ls_editPolygon:
    {
        const lsPolygonDef* def = world->polygons + ref.index;
        Polyline(renderer, camera, def->points, def->count, true, c, thick);
        break;
    }
    case ls_editRobot:
        RobotGhost(renderer, camera, lsWorld_GetRobot(world, ref.index), c, thick);
        break;
    case ls_editMover:
    case ls_editMoverPoint:
    {
        const lsMoverDef* mover = world->movers + ref.index;
        Line(renderer, camera, mover->a, mover->b, c, thick && ref.kind == ls_editMover);
        if (handles || ref.kind == ls_editMoverPoint)
        {
            Handle(renderer, camera, mover->a, ref.kind == ls_editMoverPoint && ref.sub == 0 ? 5 : 3, c,
                   ref.kind == ls_editMoverPoint && ref.sub == 0);
            Handle(renderer, camera, mover->b, ref.kind == ls_editMoverPoint && ref.sub == 1 ? 5 : 3, c,
                   ref.kind == ls_editMoverPoint && ref.sub == 1);
            if (mover->kind == ls_moverBar)
            {
                Circle(renderer, camera, mover->pivot, 0.0, c, ref.kind == ls_editMoverPoint && ref.sub == 2);
            }
        }
        break;
    }
    case ls_editNone:
        break;
    }
}

// A line of text on a dark band, at pixel (x, y) (the 8x8 SDL2_gfx font).
static void Label(SDL_Renderer* renderer, int x, int y, const char* text, lsColor c)
{
    int width = 8 * (int)strlen(text);
    boxRGBA(renderer, (Sint16)(x - 4), (Sint16)(y - 3), (Sint16)(x + width + 3), (Sint16)(y + 10), s_labelBack.r,
            s_labelBack.g, s_labelBack.b, s_labelBack.a);
    stringRGBA(renderer, (Sint16)x, (Sint16)y, text, c.r, c.g, c.b, c.a);
}

// Labels of the 8-pixel font: 8 pixels a character, a line every 16 pixels, 10 pixels from the area's edges.
#define LS_LABEL_ADVANCE 8
#define LS_LABEL_LINE 16
#define LS_LABEL_MARGIN 10

// The x at which a label of `length` characters ends LS_LABEL_MARGIN pixels from the area's right edge (never left of
// its left margin).
static int RightAligned(lsRect area, size_t length)
{
    int x = area.x + area.w - LS_LABEL_MARGIN - LS_LABEL_ADVANCE * (int)length;
    return x > area.x + LS_LABEL_MARGIN ? x : area.x + LS_LABEL_MARGIN;
}

// Draws text right-aligned at the area's bottom, its last line `bottom` pixels up from the area's foot, broken at
// its double spaces (between one hint and the next) into as many lines as the area's width needs, and cut to the
// width where one piece alone is wider. Returns the number of lines drawn.
static int BottomLabel(SDL_Renderer* renderer, lsRect area, int bottom, const char* text, lsColor c)
{
    int columns = (area.w - 2 * LS_LABEL_MARGIN) / LS_LABEL_ADVANCE;
    columns = columns < 8 ? 8 : (columns > 255 ? 255 : columns);
    char lines[8][256];
    int count = 0;
    size_t len = strlen(text), pos = 0;
    while (pos < len && count < 8)
    {
        size_t take = len - pos;
        if (take > (size_t)columns)
        {
            // The last double space that leaves a line within the width, else a hard cut.
            const char* cut = NULL;
            for (const char* at = strstr(text + pos, "  "); at != NULL && at - (text + pos) <= columns;
                 at = strstr(at + 1, "  "))
                cut = at;
            take = cut != NULL && cut > text + pos ? (size_t)(cut - (text + pos)) : (size_t)columns;
        }
        snprintf(lines[count++], sizeof lines[0], "%.*s", (int)take, text + pos);
        pos += take;
        while (pos < len && text[pos] == ' ')
            ++pos;
    }
    int foot = area.y + area.h - bottom;
    for (int i = 0; i < count; ++i)
        Label(renderer, RightAligned(area, strlen(lines[i])), foot - (count - i) * LS_LABEL_LINE + 2, lines[i], c);
    return count;
}

void lsEditor_Draw(const lsEditor* editor, SDL_Renderer* renderer, const lsCamera* camera, const lsWorld* world,
                   lsRect area)
{
    LS_ASSERT(editor != NULL && renderer != NULL && camera != NULL && world != NULL);
    if (!editor->active)
        return;
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);

    // Where the robots start: what dragging a robot's ghost moves (the sim's robots may have driven away).
    lsAABB view = lsCamera_ViewBounds(camera);
    for (int i = 0; i < lsWorld_RobotCount(world); ++i)
    {
        const lsRobotDef* robot = lsWorld_GetRobot(world, i);
        double reach = lsRobotDef_Reach(robot);
        lsAABB bounds = {lsMulSub(robot->position, reach, lsV(1.0, 1.0)),
                         lsMulAdd(robot->position, reach, lsV(1.0, 1.0))};
        if (lsAABB_Overlaps(view, bounds))
            RobotGhost(renderer, camera, robot, s_ghostColor, false);
    }

    if (editor->drag == drag_none && !editor->knife && editor->mouseKnown)
    {
        // What a press would grab, under the pointer as the camera is now (it may have zoomed since the last move).
        lsVec2 mouse = lsCamera_ScreenToWorld(camera, editor->mouseScreen);
        double tolerance = lsCamera_ToMetres(camera, LS_EDITOR_PICK_PIXELS);
        lsEditRef hover = lsEdit_Pick(world, mouse, tolerance);
        bool handle =
            hover.kind == ls_editWallPoint || hover.kind == ls_editPathPoint || hover.kind == ls_editMoverPoint;
        int live = handle ? -1 : LiveRobotAt(editor, world, mouse, tolerance);
        if (live >= 0)
        {
            // A robot where the sim shows it, as a press would pick it: its body and its start ghost.
            hover = lsMakeEditRef(ls_editRobot, live, 0);
            Circle(renderer, camera, editor->live[live].position, editor->live[live].radius, s_hoverColor, false);
        }
        if (!lsEditRef_Equal(hover, editor->selection))
            DrawRef(renderer, camera, world, hover, s_hoverColor, false, false);
    }
    DrawRef(renderer, camera, world, editor->selection, s_selectColor, true, true);

    if (editor->drag == drag_wall && editor->dragging)
    {
        lsVec2 end = SnapWallEnd(editor, world, editor->mouseWorld, lsCamera_ToMetres(camera, LS_EDITOR_PICK_PIXELS));
        Line(renderer, camera, editor->wallStart, end, s_newWallColor, true);
        Handle(renderer, camera, editor->wallStart, 3, s_newWallColor, true);
        Handle(renderer, camera, end, 3, s_newWallColor, true);
        char length[32];
        snprintf(length, sizeof length, "%.2f m", lsDistance(editor->wallStart, end));
        Label(renderer, (int)editor->mouseScreen.x + 12, (int)editor->mouseScreen.y + 12, length, s_newWallColor);
    }
    if (editor->drag == drag_knife)
    {
        for (int i = 0; i + 1 < editor->trailCount; ++i)
        {
            Line(renderer, camera, editor->trail[i], editor->trail[i + 1], s_knifeColor, true);
        }
    }

    // The mode line.
    char line[256];
    if (editor->knife)
    {
        snprintf(line, sizeof line, "EDIT | KNIFE: drag across walls to cut them   K: knife off  Ctrl+Z: undo  Esc");
    }
    else
    {
        char snap[32];
        if (lsEditor_GetSnap(editor) > 0.0)
            snprintf(snap, sizeof snap, "snap %g m", lsEditor_GetSnap(editor));
        else
            snprintf(snap, sizeof snap, "snap off");
        snprintf(line, sizeof line,
                 "EDIT | %s ([ ])  drag: wall / move  Shift: free  K: knife  I: add robot  Del  Ctrl+Z/Y  "
                 "Ctrl+S: save  Esc",
                 snap);
    }
    // Bottom right of the world's area: the window keeps its scale bar at the bottom left, its HUD at the top left
    // and its scan plot below the area, so the label covers none of them, on as many lines as the width needs.
    int drawn = BottomLabel(renderer, area, 0, line, editor->knife ? s_knifeColor : s_labelColor);
    if (lsEdit_IsValidRef(world, editor->selection))
    {
        char what[96];
        Describe(world, editor->selection, what, sizeof what);
        snprintf(line, sizeof line, "selected: %s", what);
        BottomLabel(renderer, area, drawn * LS_LABEL_LINE, line, s_selectColor);
    }
}
