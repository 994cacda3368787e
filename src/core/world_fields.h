// lidarsim core (private): the world file's keys, one table per kind of object. Each row names a key, how its
// value is stored (type and offset in the object's def), its bound (core/limits.h) and whether it is required. The
// loader (world_load.c) reads, the canonical saver (world_save.c) writes and the format-preserving saver
// (world_text.c) decides which keys a new object must spell out from the same rows, so a key is added in one place.
// Default values are those of the lsDefault*Def functions, which every reader starts from.
#pragma once

#include "core/limits.h"

#include <stdbool.h>
#include <stddef.h>

/// How a key's value is stored in the def and spelled in the file.
typedef enum lsFieldType
{
    ls_fieldNumber,  ///< double, bounded by the quantity
    ls_fieldAngle,   ///< double radians, degrees in the file (or "R rad"), bounded by the quantity
    ls_fieldBool,    ///< bool
    ls_fieldSeed,    ///< uint64_t: an integer up to 2^53, or a string of digits
    ls_fieldInteger, ///< int in [1, extra]
    ls_fieldString,  ///< char[extra]
    ls_fieldChoice,  ///< an enum (int-sized) whose value v is spelled names[v]
    ls_fieldVec2,    ///< lsVec2 as [x, y], each bounded by the quantity
    ls_fieldSize2,   ///< lsVec2 as [w, h], each a positive size
    ls_fieldPose,    ///< lsVec2 at offset and a double angle at extra, as [x, y, degrees]
    ls_fieldConvex,  ///< lsVec2[LS_MAX_POLYGON_VERTICES], an int count at extra: a convex polygon (omitted when empty)
    ls_fieldChain,   ///< lsVec2* (owned by the world), an int count at extra; the section's code reads it
    ls_fieldObject,  ///< a nested object described by the table `object` (the robot's lidar)
    ls_fieldCustom,  ///< read and written by the section's own code (listed so unknown keys are recognised)
} lsFieldType;

/// Row flags.
enum
{
    ls_fieldRequired = 1, ///< the loader fails without it; new objects always write it
    ls_fieldNonEmpty = 2, ///< a string that must not be empty
    ls_fieldNewLine = 4,  ///< the canonical saver starts a new line before it (the table's lineBreak)
    ls_fieldForm = 8,     ///< says which form the object takes (a wall's "from"/"to" or "points"): always written
};

struct lsFieldTable;

/// One key of an object.
typedef struct lsField
{
    const char* key;
    lsFieldType type;
    size_t offset;       ///< where the value sits in the def
    size_t extra;        ///< pose: the angle's offset; convex: the count's offset; string: capacity; integer: maximum
    lsQuantity quantity; ///< the bound of numbers, angles, points and poses
    int flags;           ///< ls_fieldRequired | ls_fieldNonEmpty | ls_fieldNewLine
    const char* const* names;          ///< choice: the spelling of each value, NULL-terminated
    const struct lsFieldTable* object; ///< object: its table
} lsField;

/// The keys of one kind of object, in the order the loader reads them and the canonical saver writes them.
typedef struct lsFieldTable
{
    const lsField* fields;
    int count;
    const char* separator; ///< canonical saver: between two members on one line
    const char* lineBreak; ///< canonical saver: before a member flagged ls_fieldNewLine
} lsFieldTable;

extern const lsFieldTable lsWorldFields_Root;
extern const lsFieldTable lsWorldFields_Wall;
extern const lsFieldTable lsWorldFields_Target;
extern const lsFieldTable lsWorldFields_Box;
extern const lsFieldTable lsWorldFields_Polygon;
extern const lsFieldTable lsWorldFields_Robot;
extern const lsFieldTable lsWorldFields_Lidar;
extern const lsFieldTable lsWorldFields_Path;
extern const lsFieldTable lsWorldFields_Vehicle;
extern const lsFieldTable lsWorldFields_Door;
extern const lsFieldTable lsWorldFields_Bar;
extern const lsFieldTable lsWorldFields_Sim;

/// Where the row's value sits in def.
static inline void* lsField_Value(const lsField* f, void* def) { return (unsigned char*)def + f->offset; }
/// Where the row's second part sits in def (a pose's angle, a polygon's or chain's count).
static inline void* lsField_Extra(const lsField* f, void* def) { return (unsigned char*)def + f->extra; }
/// lsField_Value for reading.
static inline const void* lsField_Get(const lsField* f, const void* def)
{
    return (const unsigned char*)def + f->offset;
}
/// lsField_Extra for reading.
static inline const void* lsField_GetExtra(const lsField* f, const void* def)
{
    return (const unsigned char*)def + f->extra;
}

/// The row of key in the table, or NULL.
const lsField* lsFieldTable_Find(const lsFieldTable* table, const char* key, size_t length);
/// The index of key's row, which the table must have.
int lsFieldTable_Row(const lsFieldTable* table, const char* key);

/// True when some kind of object requires the key or takes its form from it (ls_fieldRequired, ls_fieldForm): the
/// format-preserving saver always writes such keys for a new object.
bool lsWorldFields_IsRequiredKey(const char* key, size_t length);
