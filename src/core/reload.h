// lidarsim core: hot reload of a world file (no SDL, no clock: the caller passes the time).
//
// The window polls once per frame. Each poll stats the file (device, inode, size, modification and change times,
// so in-place writes and editors' atomic rename-replace saves are both seen). When that signature has changed and
// then stayed the same for `settle` seconds (so a file caught half-written is not even read), the file is read,
// checked again after reading (a file that changed while being read is retried on a later poll), and loaded into
// a NEW world. Only a successful load is handed back; a broken file (syntax error, bad value, truncated, deleted)
// leaves the shown world alone and keeps its error (file:line:col or JSON path, then the message) until a later
// version of the file loads. A version that loads to the world already shown (the editor's own Ctrl+S) is not
// handed back, so saving from the window never causes a reload.
//
// Usage (in the window's Update):
//   lsWorld* fresh = NULL;
//   lsReloadEvent e = lsReloader_Poll(reloader, seconds, world, &fresh);
//   if (e == ls_reloadLoaded) { new sim from fresh; destroy old sim; destroy old world; world = fresh; }
//   HUD: if (lsReloader_HasError(reloader)) show lsReloader_Error(reloader);
#pragma once

#include "lidarsim/world.h"

/// Default settle time, seconds: a change is read once the file has looked the same for this long.
#define LS_RELOAD_SETTLE 0.1

/// What a poll found.
typedef enum lsReloadEvent
{
    ls_reloadNone = 0,   ///< nothing to do: the file is unchanged, still settling, or changing while read
    ls_reloadLoaded = 1, ///< the file changed and loaded to a different world, returned in *newWorld (caller owns it)
    ls_reloadSame = 2,   ///< the file changed and loads to a world equal to the one shown: keep it (error cleared)
    ls_reloadFailed = 3, ///< the file changed and does not load, or is gone: keep the shown world, show the error
} lsReloadEvent;

/// A file watcher with its last error (opaque). Create with lsCreateReloader, destroy with lsDestroyReloader.
typedef struct lsReloader lsReloader;

/// Watches path, taking the file as it is now as already loaded (the caller has just loaded it). settle is in
/// seconds (>= 0; 0 reads a change at the first poll that sees it). Destroy with lsDestroyReloader.
lsReloader* lsCreateReloader(const char* path, double settle);
/// Frees the watcher. NULL is allowed.
void lsDestroyReloader(lsReloader* reloader);

/// Checks the file. now is the caller's clock in seconds (any origin, never decreasing). current is the world
/// shown (may be NULL: then every successful load is returned). A world whose robot's start the loader picks from
/// its map (lsMapRef.robotPlaced) keeps current's start pose: an edit elsewhere in the image may move the pick. On ls_reloadLoaded *newWorld is a new world to
/// destroy with lsDestroyWorld; otherwise *newWorld is set to NULL. A failing version is reported once (the
/// event); its error stays in lsReloader_Error until a version loads.
lsReloadEvent lsReloader_Poll(lsReloader* reloader, double now, const lsWorld* current, lsWorld** newWorld);

/// The caller wrote the file itself (the editor's save): take the file as it is now as loaded, and clear the error.
void lsReloader_MarkSaved(lsReloader* reloader);

/// True while the latest version of the file did not load.
bool lsReloader_HasError(const lsReloader* reloader);
/// The latest version's error ("worlds/maze.json:12:18: ..." or "worlds/maze.json: cannot open: ..."), "" if none.
const char* lsReloader_Error(const lsReloader* reloader);
/// The text of the latest version that loaded (ls_reloadLoaded or ls_reloadSame), NUL-terminated, *size bytes
/// (size may be NULL); NULL before any. Valid until the next poll or destroy. The window keeps a copy, so a save
/// can keep the file as its author wrote it.
const char* lsReloader_Text(const lsReloader* reloader, size_t* size);
/// Versions of the file read so far (loaded, same or failed), for tests and the HUD.
int lsReloader_ReadCount(const lsReloader* reloader);
/// What the loader warned of in the version last read (an unknown key, a key given twice: the world loads without
/// it), as lsLoadWorld's warnings; none before any read.
const lsWarnings* lsReloader_Warnings(const lsReloader* reloader);
