// lidarsim front end: the in-window world editor. Turns SDL events (through the camera) into edit operations on
// the world model (core/edit.h) and draws its overlay. It owns the undo/redo history and the selection, never the
// world: the window owns the world and the simulation built from it.
//
// Keys (all consumed by the editor only while it is active, except E, which toggles it, and Ctrl+Z/Y/S):
//   E          toggle edit mode           K        toggle the knife (drag across walls to cut them)
//   [ ]        snap grid finer / coarser (off, 1 cm .. 1 m; default 5 cm); Shift held: no snapping
//   left drag  on empty space: draw a wall; on an object: move it (target, box, polygon, robot, vehicle,
//              a wall or one of its corners, a path point, a moving wall's end or pivot)
//   click      select (empty space: clear the selection); a robot is picked where the sim shows it now (given by
//              lsEditor_SetLiveRobots) or at its start pose (its ghost)
//   Delete / Backspace   remove the selection (a robot too, unless it is the last one)
//   Insert, I  add a robot: a copy of the selected robot (else the first) at the free place nearest it (no robot
//              selected: nearest the pointer), with a new id; it becomes the selection
//   Ctrl+Z     undo                       Ctrl+Y, Ctrl+Shift+Z    redo
//   Ctrl+S     ask the window to save the world to its file (lsEditResult.saveRequested)
//   Esc        cancel the drag in progress, else leave the knife, else clear the selection, else leave edit mode
// Right and middle drags and the wheel are never consumed, so the window keeps panning and zooming with them.
//
// Contract with the window:
// - The editor changes *world in place. When lsEditResult.worldChanged is true, the simulation is stale: the window
//   builds a new one from a copy of the edited world and carries the run over (lsSim_CarryOver in lidarsim/sim.h).
// - When the window replaces the world (hot reload, R is fine: it does not change the world), call
//   lsEditor_WorldReplaced so the selection and the undo history, which name objects by index, are dropped.
// - On lsEditResult.saveRequested the window writes the file and tells the hot-reload poller
//   (lsReloader_MarkSaved in core/reload.h) so it does not reload what it just wrote.
#pragma once

#include "app/camera.h"
#include "core/edit.h"
#include "lidarsim/sim.h"
#include "lidarsim/world.h"

#include <SDL2/SDL.h>
#include <stdbool.h>

/// The editor (opaque). Create with lsCreateEditor, destroy with lsDestroyEditor.
typedef struct lsEditor lsEditor;

/// What one event did, for the window to act on and the HUD to show.
typedef struct lsEditResult
{
    bool worldChanged;  ///< the world's definitions changed (edit, undo, redo): rebuild the simulation
    bool robotChanged;  ///< among the changes, a robot's start pose changed, or robots were added or removed
    bool undone;        ///< the change was an undo or redo: a robot it brings back resumes its run (lsApp_RebuildSim)
    bool redone;        ///< of those, a redo
    bool saveRequested; ///< Ctrl+S: the window should save the world to its file (lsApp_Save)
    bool failed;        ///< message is an error (e.g. the save failed); the world is unchanged by the failure
    bool robotPicked;   ///< a robot was selected (clicked, or just added): the window drives robot `robot` from now
    int robot;          ///< with robotPicked: its index in the world
    char message[512];  ///< a line for the HUD ("saved worlds/maze.json", "cut 2 walls", an error), or ""
} lsEditResult;

/// A new editor, inactive, with an empty history. Destroy with lsDestroyEditor.
lsEditor* lsCreateEditor(void);
/// Frees the editor and its undo history. NULL is allowed.
void lsDestroyEditor(lsEditor* editor);

/// Handles one event. Returns true when the editor consumed it (the window must then ignore it). world is the
/// world being shown (edited in place); worldPath names the file in messages (may be NULL).
/// out is cleared first and always filled.
bool lsEditor_HandleEvent(lsEditor* editor, const SDL_Event* event, const lsCamera* camera, lsWorld* world,
                          const char* worldPath, lsEditResult* out);

/// Draws the overlay over the world: the start pose of the robot, the selection and its handles, the object under
/// the mouse, the wall being drawn, the knife's trail and a mode label. Draws nothing when inactive. Never changes
/// the world. The mode label and the selection's name go at the bottom right of area (the window's part beside its
/// panels, lsWorldArea), on as many lines as its width needs.
void lsEditor_Draw(const lsEditor* editor, SDL_Renderer* renderer, const lsCamera* camera, const lsWorld* world,
                   lsRect area);

/// Where the sim's robots are now (count entries in the world's order), so a click picks a robot where it is shown
/// rather than only at its start pose. The editor keeps the pointer: call it before each lsEditor_HandleEvent and
/// lsEditor_Draw with the current sim state, or with NULL while the sim does not match the world (an edit not yet
/// simulated).
void lsEditor_SetLiveRobots(lsEditor* editor, const lsRobotState* robots, int count);
/// The robot the window has selected (Tab), which I copies when the editor has no robot selected of its own.
void lsEditor_SetWindowRobot(lsEditor* editor, int index);
/// True while edit mode is on (the window then leaves left drags to the editor and may show it in the HUD).
bool lsEditor_IsActive(const lsEditor* editor);
/// Turns edit mode on or off (leaving it cancels a drag in progress, which restores the world as it was before
/// the drag; returns true in that case because the world changed back).
bool lsEditor_SetActive(lsEditor* editor, bool active, lsWorld* world);
/// The world was replaced from outside (hot reload, a new file): drops the selection, any drag in progress and the
/// undo/redo history, which name objects by index in the old world.
void lsEditor_WorldReplaced(lsEditor* editor);
/// The current selection (kind ls_editNone when nothing is selected), for the HUD.
lsEditRef lsEditor_GetSelection(const lsEditor* editor);
/// Selects ref (the window's Tab selects the robot it drives here too, so I copies it and Delete removes it); an
/// invalid ref clears the selection.
void lsEditor_Select(lsEditor* editor, const lsWorld* world, lsEditRef ref);
/// The grid drawn and dragged points snap to, metres (0: off). Default 0.05; [ and ] in edit mode step through
/// off, 0.01, 0.05, 0.1, 0.25, 0.5 and 1; Shift held places freely.
double lsEditor_GetSnap(const lsEditor* editor);
/// Steps the editor can undo and redo.
int lsEditor_UndoCount(const lsEditor* editor);
int lsEditor_RedoCount(const lsEditor* editor);
