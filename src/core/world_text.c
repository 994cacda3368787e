// lidarsim core: the format-preserving save (see world_text.h).
//
// Three texts take part: OLD, the file as the user wrote it; BASE, the canonical form (lsSaveWorldToString) of the
// world OLD loads to; NOW, the canonical form of the world to save. The canonical form spells every value one way,
// so two objects are equal exactly when their canonical texts are, and BASE has the same objects in the same order
// as OLD. The save walks OLD, BASE and NOW together as JSON: a value whose BASE and NOW texts are equal is copied
// from OLD untouched; an object present in both is patched key by key; an array of objects or arrays is aligned element
// by element (kept, changed, inserted, removed). A third canonical text, DEFAULTS (a world of one default object of
// each kind), says which keys a new object can leave out.
#define _POSIX_C_SOURCE 200809L

#include "core/world_text.h"

#include "core/file_write.h"
#include "core/json_path.h"
#include "core/text.h"
#include "core/world_fields.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------------------------------
// Reading JSON structure without building a tree: spans of text

typedef struct Span
{
    const char* text;  // the whole document
    size_t start, end; // [start, end): one JSON value; start == end: absent
} Span;

static size_t SpanLength(Span s) { return s.end - s.start; }
static bool Absent(Span s) { return s.start == s.end; }
static char First(Span s)
{
    if (Absent(s))
        return '\0';
    return s.text[s.start];
}

static bool SpanEqual(Span a, Span b)
{
    return SpanLength(a) == SpanLength(b) && memcmp(a.text + a.start, b.text + b.start, SpanLength(a)) == 0;
}

/// An object member: its key (with the quotes) and its value.
typedef struct Member
{
    Span key, value;
} Member;

/// A growable list of spans (array elements) or members (object members).
typedef struct Items
{
    Member* items;
    int count, capacity;
} Items;

static void Push(Items* list, Member m)
{
    if (list->count == list->capacity)
    {
        int grown = list->capacity > 0 ? 2 * list->capacity : 16;
        list->items = lsRealloc(list->items, (size_t)list->capacity * sizeof(Member), (size_t)grown * sizeof(Member));
        list->capacity = grown;
    }
    list->items[list->count++] = m;
}

static void FreeItems(Items* list)
{
    lsFree(list->items, (size_t)list->capacity * sizeof(Member));
    memset(list, 0, sizeof *list);
}

// The members of an object ({...}) or the elements of an array ([...], in .value). False when the span is not one
// well-formed container (the caller then falls back to rewriting).
static bool Children(Span container, Items* out)
{
    const char* t = container.text;
    size_t n = container.end;
    char open = First(container);
    if (open != '{' && open != '[')
        return false;
    char close = open == '{' ? '}' : ']';
    size_t i = lsJsonSkipSpace(t, n, container.start + 1);
    if (i < n && t[i] == close)
        return true;
    while (i < n)
    {
        Member m = {{t, i, i}, {t, i, i}};
        if (open == '{')
        {
            if (t[i] != '"')
                return false;
            m.key.end = lsJsonSkipString(t, n, i);
            i = lsJsonSkipSpace(t, n, m.key.end);
            if (i >= n || t[i] != ':')
                return false;
            i = lsJsonSkipSpace(t, n, i + 1);
        }
        m.value.start = i;
        m.value.end = lsJsonSkipValue(t, n, i);
        if (m.value.end == i)
            return false;
        Push(out, m);
        i = lsJsonSkipSpace(t, n, m.value.end);
        if (i < n && t[i] == close)
            return true;
        if (i >= n || t[i] != ',')
            return false;
        i = lsJsonSkipSpace(t, n, i + 1);
    }
    return false;
}

// The member with this key (a span with quotes), or an absent span.
static Span Lookup(const Items* members, Span key)
{
    for (int i = 0; i < members->count; ++i)
    {
        if (SpanEqual(members->items[i].key, key))
            return members->items[i].value;
    }
    return (Span){key.text, 0, 0};
}

// The value of member `key` (with quotes) of the object `object`, or an absent span.
static Span MemberOf(Span object, const char* key)
{
    Items members = {0};
    Span value = {object.text, 0, 0};
    if (First(object) == '{' && Children(object, &members))
        value = Lookup(&members, (Span){key, 0, strlen(key)});
    FreeItems(&members);
    return value;
}

// The text's value, after its whitespace and a UTF-8 byte order mark (the loader skips one; the save keeps it).
static Span WholeText(const char* text)
{
    size_t n = strlen(text), bom = n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    return (Span){text, lsJsonSkipSpace(text, n, bom), n};
}

// The root value's span: from its first character to its end.
static Span RootValue(const char* text)
{
    Span s = WholeText(text);
    s.end = lsJsonSkipValue(text, s.end, s.start);
    return s;
}

// ---------------------------------------------------------------------------------------------------------------------
// Output

// The format-preserving writer's output.
typedef lsText Out;

static void EmitText(Out* o, const char* s) { lsText_Append(o, s, strlen(s)); }
static void EmitSpan(Out* o, Span s) { lsText_Append(o, s.text + s.start, SpanLength(s)); }
static void EmitRange(Out* o, const char* t, size_t a, size_t b) { lsText_Append(o, t + a, b - a); }

// ---------------------------------------------------------------------------------------------------------------------
// Writing new values: only the keys that differ from their defaults

// Keys the loader requires (or that say which form an object takes), from the key tables: always written.
static bool IsRequiredKey(Span key)
{
    return SpanLength(key) >= 2 && lsWorldFields_IsRequiredKey(key.text + key.start + 1, SpanLength(key) - 2);
}

// Of an array of default objects (one per form, e.g. a door and a bar), the one of the same "type" as object, else
// the first.
static Span DefaultFor(Span defaults, Span object)
{
    Span none = {defaults.text, 0, 0};
    if (First(defaults) != '[')
        return defaults;
    Items elements = {0};
    Span chosen = none;
    if (Children(defaults, &elements) && elements.count > 0)
    {
        chosen = elements.items[0].value;
        Items mine = {0};
        if (Children(object, &mine))
        {
            Span typeKey = {"\"type\"", 0, 6};
            Span type = Lookup(&mine, typeKey);
            for (int i = 0; i < elements.count && !Absent(type); ++i)
            {
                Items theirs = {0};
                if (Children(elements.items[i].value, &theirs) && SpanEqual(Lookup(&theirs, typeKey), type))
                    chosen = elements.items[i].value;
                FreeItems(&theirs);
            }
        }
        FreeItems(&mine);
    }
    FreeItems(&elements);
    return chosen;
}

// Whether value is a non-empty array of objects.
static bool IsObjectList(Span value)
{
    Items elements = {0};
    bool list = First(value) == '[' && Children(value, &elements) && elements.count > 0 &&
                First(elements.items[0].value) == '{';
    FreeItems(&elements);
    return list;
}

// A canonical value written compactly on one line: objects keep the required keys and those whose value differs
// from def (the default object at this place; absent: keep every key), recursively.
static void EmitCompact(Out* o, Span value, Span def)
{
    Items members = {0};
    if (First(value) == '{' && Children(value, &members))
    {
        Items defaults = {0};
        bool haveDefaults = First(def) == '{' && Children(def, &defaults);
        EmitText(o, "{");
        bool first = true;
        for (int i = 0; i < members.count; ++i)
        {
            Member m = members.items[i];
            Span d = haveDefaults ? Lookup(&defaults, m.key) : (Span){def.text, 0, 0};
            // The defaults' lists of objects hold one default object each, for their elements: a list left out is
            // empty, not that list (a world whose one box is the default box lost it).
            if (haveDefaults && !IsRequiredKey(m.key) && !Absent(d) && !IsObjectList(d) && SpanEqual(d, m.value))
                continue;
            EmitText(o, first ? "" : ", ");
            EmitSpan(o, m.key);
            EmitText(o, ": ");
            EmitCompact(o, m.value, d);
            first = false;
        }
        EmitText(o, "}");
        FreeItems(&defaults);
    }
    else if (First(value) == '[' && Children(value, &members) && members.count > 0 &&
             First(members.items[0].value) == '{')
    {
        EmitText(o, "[");
        for (int i = 0; i < members.count; ++i)
        {
            EmitText(o, i > 0 ? ", " : "");
            EmitCompact(o, members.items[i].value, DefaultFor(def, members.items[i].value));
        }
        EmitText(o, "]");
    }
    else
    {
        EmitSpan(o, value);
    }
    FreeItems(&members);
}

// ---------------------------------------------------------------------------------------------------------------------
// Merging: OLD text, BASE and NOW canonical values, DEF the defaults at this place

static void Merge(Out* o, Span old, Span base, Span now, Span def, const char* indent);

// The whitespace that starts the line holding position i (for new members and elements in the file's layout).
static void LineIndent(const char* t, size_t i, char* out, size_t capacity)
{
    size_t start = i;
    while (start > 0 && t[start - 1] != '\n')
        --start;
    size_t n = 0;
    while (start + n < i && (t[start + n] == ' ' || t[start + n] == '\t') && n + 1 < capacity)
    {
        out[n] = t[start + n];
        ++n;
    }
    out[n] = '\0';
}

// Patches an object in place: members whose value changed are merged, members new in NOW are added after the last
// one with the object's own separator, members neither canonical text has (a key the loader ignores with a warning,
// a default the canonical form leaves out) stay as written. Refused (false) when OLD spells a key that only NOW's
// canonical form uses, or a key disappears (the object changed form, e.g. a wall from {"from", "to"} to
// {"points"}): a typo'd key made the whole file one line.
static bool PatchObject(Out* o, Span old, Span base, Span now, Span def, const char* indent)
{
    Items oldM = {0}, baseM = {0}, nowM = {0}, defM = {0};
    bool ok = Children(old, &oldM) && Children(base, &baseM) && Children(now, &nowM);
    if (First(def) == '{')
        Children(def, &defM);
    for (int i = 0; ok && i < oldM.count; ++i)
        ok = !Absent(Lookup(&baseM, oldM.items[i].key)) || Absent(Lookup(&nowM, oldM.items[i].key));
    for (int i = 0; ok && i < baseM.count; ++i)
        ok = !Absent(Lookup(&nowM, baseM.items[i].key));
    if (ok)
    {
        const char* t = old.text;
        size_t at = old.start;
        char inner[64];
        for (int i = 0; i < oldM.count; ++i)
        {
            Member m = oldM.items[i];
            EmitRange(o, t, at, m.value.start);
            LineIndent(t, m.key.start, inner, sizeof inner);
            if (Absent(Lookup(&baseM, m.key)))
                EmitSpan(o, m.value); // neither canonical text has it
            else
                Merge(o, m.value, Lookup(&baseM, m.key), Lookup(&nowM, m.key), Lookup(&defM, m.key), inner);
            at = m.value.end;
        }
        // New members: NOW's keys the OLD text leaves to their defaults but whose value changed.
        char separator[80] = ", ";
        if (oldM.count >= 2)
        {
            size_t a = oldM.items[0].value.end, b = oldM.items[1].key.start;
            if (b - a < sizeof separator)
            {
                memcpy(separator, t + a, b - a);
                separator[b - a] = '\0';
            }
        }
        for (int i = 0; i < nowM.count; ++i)
        {
            Member m = nowM.items[i];
            if (!Absent(Lookup(&oldM, m.key)) || SpanEqual(Lookup(&baseM, m.key), m.value))
                continue;
            EmitText(o, oldM.count > 0 ? separator : "");
            EmitSpan(o, m.key);
            EmitText(o, ": ");
            EmitCompact(o, m.value, Lookup(&defM, m.key));
            oldM.count += oldM.count == 0 ? 1 : 0; // later members need the separator
        }
        EmitRange(o, t, at, old.end);
    }
    (void)indent;
    FreeItems(&oldM);
    FreeItems(&baseM);
    FreeItems(&nowM);
    FreeItems(&defM);
    return ok;
}

// How far ahead the alignment of two arrays looks for a kept element (a removal or an insertion of up to this many
// elements at one place is recognised as such; beyond, elements count as changed in place).
#define LS_ALIGN_WINDOW 64

// Aligns OLD's elements (equal in number and order to BASE's) with NOW's, elements being objects or arrays: an element
// equal to the next BASE element is kept byte for byte; one that matches a later BASE element means the ones between
// were removed; a BASE element that matches a later NOW element means NOW's elements before it were inserted; otherwise
// the element changed in place and is merged. Gaps between two elements kept side by side keep their text; other gaps
// use the array's first separator.
static bool MergeArray(Out* o, Span old, Span base, Span now, Span def, const char* indent)
{
    Items oldE = {0}, baseE = {0}, nowE = {0};
    bool ok = Children(old, &oldE) && Children(base, &baseE) && Children(now, &nowE) && oldE.count == baseE.count;
    // Arrays of objects and of arrays (a wall's points, one a line in many files): a moved corner is then its own
    // element rewritten, not the whole array on one line. Arrays of numbers ([x, y]) are rewritten whole.
    for (int i = 0; ok && i < nowE.count; ++i)
        ok = First(nowE.items[i].value) == '{' || First(nowE.items[i].value) == '[';
    if (ok)
    {
        const char* t = old.text;
        // The array's layout: text before the first element, between elements, after the last.
        char prefix[160], separator[176], suffix[160];
        if (oldE.count > 0)
        {
            size_t a = old.start + 1, b = oldE.items[0].value.start;
            snprintf(prefix, sizeof prefix, "%.*s", (int)(b - a), t + a);
            a = oldE.items[oldE.count - 1].value.end;
            b = old.end - 1;
            snprintf(suffix, sizeof suffix, "%.*s", (int)(b - a), t + a);
            if (oldE.count >= 2)
            {
                a = oldE.items[0].value.end;
                b = oldE.items[1].value.start;
                snprintf(separator, sizeof separator, "%.*s", (int)(b - a), t + a);
            }
            else
                snprintf(separator, sizeof separator, ",%s", strchr(prefix, '\n') != NULL ? prefix : " ");
        }
        else
        {
            // An empty array in the file: one element a line, indented one step deeper than the array's member.
            snprintf(prefix, sizeof prefix, "\n%s%s", indent, indent[0] != '\0' ? indent : "  ");
            snprintf(separator, sizeof separator, ",%s", prefix);
            snprintf(suffix, sizeof suffix, "\n%s", indent);
        }
        EmitText(o, "[");
        int j = 0;         // next OLD element
        int lastKept = -2; // OLD index of the element just written verbatim (for its following gap)
        int written = 0;
        for (int i = 0; i < nowE.count; ++i)
        {
            Span n = nowE.items[i].value;
            int kept = -1;
            bool insert = false;
            if (j < baseE.count && SpanEqual(n, baseE.items[j].value))
                kept = j;
            else
            {
                int ahead = -1, later = -1;
                for (int k = j + 1; k < baseE.count && k <= j + LS_ALIGN_WINDOW && ahead < 0; ++k)
                    ahead = SpanEqual(n, baseE.items[k].value) ? k : -1;
                for (int k = i + 1; j < baseE.count && k < nowE.count && k <= i + LS_ALIGN_WINDOW && later < 0; ++k)
                    later = SpanEqual(nowE.items[k].value, baseE.items[j].value) ? k : -1;
                if (ahead >= 0 && (later < 0 || ahead - j <= later - i))
                    kept = ahead;
                else
                    insert = later >= 0 || j >= baseE.count;
            }
            if (written == 0)
                EmitText(o, prefix);
            else if (kept >= 0 && kept == lastKept + 1)
                EmitRange(o, t, oldE.items[lastKept].value.end, oldE.items[kept].value.start);
            else
                EmitText(o, separator);
            if (kept >= 0)
            {
                EmitSpan(o, oldE.items[kept].value);
                lastKept = kept;
                j = kept + 1;
            }
            else if (insert)
            {
                EmitCompact(o, n, DefaultFor(def, n));
                lastKept = -2;
            }
            else
            {
                Merge(o, oldE.items[j].value, baseE.items[j].value, n, DefaultFor(def, n), indent);
                lastKept = -2;
                j += 1;
            }
            written += 1;
        }
        if (written > 0)
            EmitText(o, suffix);
        else if (oldE.count > 0)
            EmitRange(o, t, oldE.items[oldE.count - 1].value.end, old.end - 1); // keep the closing line's layout
        EmitText(o, "]");
    }
    FreeItems(&oldE);
    FreeItems(&baseE);
    FreeItems(&nowE);
    return ok;
}

static void Merge(Out* o, Span old, Span base, Span now, Span def, const char* indent)
{
    if (SpanEqual(base, now))
    {
        EmitSpan(o, old);
        return;
    }
    size_t mark = o->length;
    bool done = false;
    if (First(old) == '{' && First(base) == '{' && First(now) == '{')
        done = PatchObject(o, old, base, now, def, indent);
    else if (First(old) == '[' && First(base) == '[' && First(now) == '[')
        done = MergeArray(o, old, base, now, def, indent);
    if (!done)
    {
        o->length = mark; // drop what a refused merge had written
        EmitCompact(o, now, def);
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// The defaults: a world with one default object of each kind, in canonical form

static char* DefaultsText(void)
{
    lsWorld* w = lsCreateWorld();
    lsVec2 points[2] = {{0.0, 0.0}, {1.0, 0.0}};
    lsWorld_AddWall(w, points, 2, false);
    lsWorld_AddTarget(w, lsDefaultTargetDef());
    lsWorld_AddBox(w, lsDefaultBoxDef());
    lsPolygonDef polygon = {{{0.0, 0.0}, {1.0, 0.0}, {0.0, 1.0}}, 3, lsDefaultBoxDef().reflectance};
    lsWorld_AddPolygon(w, &polygon);
    lsWorld_AddPath(w, "p", points, 2, 0.5, false);
    lsWorld_AddVehicle(w, lsDefaultVehicleDef());
    lsMoverDef door = lsDefaultMoverDef();
    door.kind = ls_moverDoor;
    lsWorld_AddMover(w, door);
    lsMoverDef bar = lsDefaultMoverDef();
    bar.kind = ls_moverBar;
    lsWorld_AddMover(w, bar);
    char* text = lsSaveWorldToString(w);
    lsDestroyWorld(w);
    // And a "robots" list of one default robot, whose id ("") no robot has: a new robot's id is always written.
    lsWorld* fleet = lsCreateWorld();
    fleet->robotList = true;
    fleet->robot.id[0] = '\0';
    char* fleetText = lsSaveWorldToString(fleet);
    lsDestroyWorld(fleet);
    Span root = RootValue(text);
    Out o = {0};
    EmitRange(&o, text, 0, root.end - 1);
    EmitText(&o, ",\n  \"robots\": ");
    EmitSpan(&o, MemberOf(RootValue(fleetText), "\"robots\""));
    EmitText(&o, "\n}");
    EmitText(&o, text + root.end);
    lsFreeString(fleetText);
    lsFreeString(text);
    return lsRealloc(o.data, o.capacity, o.length + 1); // lsFreeString frees strlen + 1 bytes
}

// ---------------------------------------------------------------------------------------------------------------------
// The one-robot shorthand becoming a list

// OLD's text with its "robot": {...} member written as "robots": [{...}], the object's text kept and the id that the
// shorthand leaves implicit put first (listText, the canonical text of the world as a list, spells it): a text that
// loads to the base world as a list. Then a world that gained robots merges like any list: the first robot keeps
// its text, the new ones are inserted. NULL when OLD has no "robot" object (the list is then a new member).
static char* ShorthandAsList(const char* oldText, const char* listText)
{
    Span robot = MemberOf(RootValue(oldText), "\"robot\"");
    Span robots = MemberOf(RootValue(listText), "\"robots\"");
    Items list = {0}, members = {0};
    char* result = NULL;
    if (First(robot) == '{' && Children(robots, &list) && list.count > 0 && Children(robot, &members))
    {
        Span id = MemberOf(list.items[0].value, "\"id\"");
        Items root = {0};
        Children(RootValue(oldText), &root);
        Span key = {oldText, 0, 0};
        for (int i = 0; i < root.count; ++i)
            key = SpanEqual(root.items[i].value, robot) ? root.items[i].key : key;
        FreeItems(&root);
        Out o = {0};
        EmitRange(&o, oldText, 0, key.start);
        EmitText(&o, "\"robots\"");
        EmitRange(&o, oldText, key.end, robot.start);
        EmitText(&o, "[{");
        if (!Absent(MemberOf(robot, "\"id\"")))
            EmitRange(&o, oldText, robot.start + 1, robot.end);
        else if (members.count == 0)
        {
            EmitText(&o, "\"id\": ");
            EmitSpan(&o, id);
            EmitRange(&o, oldText, robot.start + 1, robot.end);
        }
        else
        {
            // In the object's own layout: on a line of its own when its members are one a line.
            size_t first = members.items[0].key.start;
            EmitRange(&o, oldText, robot.start + 1, first);
            EmitText(&o, "\"id\": ");
            EmitSpan(&o, id);
            EmitText(&o, ",");
            if (memchr(oldText + robot.start + 1, '\n', first - robot.start - 1) != NULL)
                EmitRange(&o, oldText, robot.start + 1, first);
            else
                EmitText(&o, " ");
            EmitRange(&o, oldText, first, robot.end);
        }
        EmitText(&o, "]");
        EmitText(&o, oldText + robot.end);
        result = lsRealloc(o.data, o.capacity, o.length + 1); // lsFreeString frees strlen + 1 bytes
    }
    FreeItems(&list);
    FreeItems(&members);
    return result;
}

// ---------------------------------------------------------------------------------------------------------------------
// Public

// Merged texts that failed their check (lsWorldText_MergeFailures).
static atomic_llong s_mergeFailures;

// A copy of world without the walls of its map (made from the map's image at every load, never written).
static lsWorld* WithoutMapWalls(const lsWorld* world)
{
    lsWorld* copy = lsCloneWorld(world);
    int kept = 0; // compacted in one pass (removing them one at a time moved the world's own walls once each)
    for (int i = 0; i < copy->wallCount; ++i)
    {
        lsWallDef* wall = copy->walls + i;
        if (wall->fromMap)
            lsFree(wall->points, (size_t)wall->pointCount * sizeof(lsVec2));
        else
            copy->walls[kept++] = *wall;
    }
    copy->wallCount = kept;
    return copy;
}

// True when the text written for world loaded back as `loaded` says what world says: equal, or, on a map, equal but
// for the map's walls. Those the load-back reads from the map's files as they are now, which may have changed on
// disk since world was loaded (the window reloads them after the save); the file does not hold them.
static bool LoadsBackTo(const lsWorld* loaded, const lsWorld* world)
{
    if (lsWorld_Equal(loaded, world))
        return true;
    if (world->map.path[0] == '\0')
        return false;
    lsWorld* a = WithoutMapWalls(loaded);
    lsWorld* b = WithoutMapWalls(world);
    bool same = lsWorld_Equal(a, b);
    lsDestroyWorld(a);
    lsDestroyWorld(b);
    return same;
}

char* lsFormatWorldKeepingText(const lsWorld* world, const char* baseText, const lsWorld* baseWorld,
                               const char* fileName)
{
    LS_ASSERT(world != NULL);
    char* now = lsSaveWorldToString(world);
    if (baseText == NULL || baseWorld == NULL)
        return now;
    char* base = lsSaveWorldToString(baseWorld);
    char* listed = NULL;
    if (!baseWorld->robotList && (world->robotList || world->fleetCount > 0))
    {
        // The file has the one-robot shorthand and the world now has a list: merge against the file as a list.
        lsWorld* asList = lsCloneWorld(baseWorld);
        asList->robotList = true;
        lsFreeString(base);
        base = lsSaveWorldToString(asList);
        lsDestroyWorld(asList);
        listed = ShorthandAsList(baseText, base);
        baseText = listed != NULL ? listed : baseText;
    }
    char* defaults = DefaultsText();
    Out o = {0};
    Span old = RootValue(baseText);
    char indent[64];
    indent[0] = '\0';
    Items rootMembers = {0};
    if (Children(old, &rootMembers) && rootMembers.count > 0)
        LineIndent(baseText, rootMembers.items[0].key.start, indent, sizeof indent);
    FreeItems(&rootMembers);
    // What surrounds the root value (leading blank lines, the final newline) stays as it was.
    EmitRange(&o, baseText, 0, old.start);
    Merge(&o, old, RootValue(base), RootValue(now), RootValue(defaults), indent);
    EmitText(&o, baseText + old.end);

    // The promise is load(save(w)) == w, whatever the file looked like: check it, else write the canonical form.
    char* result = now;
    if (o.data != NULL)
    {
        lsWorld* check = lsLoadWorldFromString(o.data, o.length, fileName, NULL, NULL);
        if (check != NULL && LoadsBackTo(check, world))
        {
            result = lsRealloc(o.data, o.capacity, o.length + 1); // lsFreeString frees strlen + 1 bytes
            o.data = NULL;
            lsFreeString(now);
        }
        else
        {
            atomic_fetch_add_explicit(&s_mergeFailures, 1, memory_order_relaxed);
        }
        lsDestroyWorld(check);
    }
    if (o.data != NULL)
        lsFree(o.data, o.capacity);
    lsFreeString(defaults);
    lsFreeString(base);
    lsFreeString(listed);
    return result;
}

long long lsWorldText_MergeFailures(void) { return atomic_load_explicit(&s_mergeFailures, memory_order_relaxed); }

bool lsSaveWorldKeepingText(const lsWorld* world, const char* path, const char* baseText, const lsWorld* baseWorld,
                            char** written, lsError* err)
{
    LS_ASSERT(world != NULL && path != NULL);
    char mapPath[LS_MAP_REF_CAPACITY];
    if (!lsCheckSaveTarget(world, path, mapPath, sizeof mapPath, err))
        return false;
    char* text = lsFormatWorldKeepingText(world, baseText, baseWorld, path);
    // Never write a file the loader would refuse (an edited world with, say, two paths of one id).
    lsWorld* check = lsLoadWorldFromString(text, strlen(text), path, err, NULL);
    bool saved = check != NULL;
    lsDestroyWorld(check);
    if (!saved)
    {
        char reason[sizeof err->message];
        snprintf(reason, sizeof reason, "%s", err != NULL ? err->message : "");
        lsFail(err, "%s: not saved, the world is not valid: %s", path, reason);
    }
    saved = saved && lsWriteFileAtomic(path, text, strlen(text), err);
    if (saved && written != NULL)
        *written = text;
    else
        lsFreeString(text);
    return saved;
}
