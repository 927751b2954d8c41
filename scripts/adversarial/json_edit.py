"""Editing a problem file's JSON text in its own layout: only the inputs' `adversarial`
entries and the `notes` change."""
import json
import re

# The sentence decision.sentence writes, at the end of the notes.
SENTENCE = re.compile(r"\s*The adversarial trial draws .*$", re.DOTALL)


class Span:
    def __init__(self, kind, start, end, children=None):
        self.kind, self.start, self.end = kind, start, end
        self.children = children  # object: [(key, key_start, value Span)], array: [Span]


def scan_json(s, i=0):
    def ws(i):
        while i < len(s) and s[i] in " \t\r\n":
            i += 1
        return i

    def value(i):
        i = ws(i)
        c = s[i]
        if c == "{":
            kids, j = [], ws(i + 1)
            if s[j] == "}":
                return Span("object", i, j + 1, kids)
            while True:
                j = ws(j)
                key_span = string(j)
                key = json.loads(s[key_span.start:key_span.end])
                j = ws(key_span.end)
                assert s[j] == ":"
                v = value(j + 1)
                kids.append((key, key_span.start, v))
                j = ws(v.end)
                if s[j] == "}":
                    return Span("object", i, j + 1, kids)
                assert s[j] == ","
                j += 1
        if c == "[":
            kids, j = [], ws(i + 1)
            if s[j] == "]":
                return Span("array", i, j + 1, kids)
            while True:
                v = value(j)
                kids.append(v)
                j = ws(v.end)
                if s[j] == "]":
                    return Span("array", i, j + 1, kids)
                assert s[j] == ","
                j += 1
        if c == '"':
            return string(i)
        m = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null").match(s, i)
        return Span("scalar", i, m.end())

    def string(i):
        assert s[i] == '"'
        j = i + 1
        while s[j] != '"':
            j += 2 if s[j] == "\\" else 1
        return Span("string", i, j + 1)

    return value(i)


def member(obj, key):
    for k, kstart, v in obj.children:
        if k == key:
            return kstart, v
    return None


def render_dist(d, like_text):
    """`d` as JSON in the number style of `like_text` (a distribution of the file)."""
    floats = bool(re.search(r'"a":\s*-?\d+\.\d', like_text or ""))

    def num(v):
        v = float(v)
        if v.is_integer() and not floats:
            return str(int(v))
        return json.dumps(v)

    items = [("kind", json.dumps(d["kind"])), ("a", num(d["a"])), ("b", num(d["b"]))]
    if like_text and "\n" in like_text:
        indent = re.search(r'\n([ \t]*)"', like_text).group(1)
        closing = re.search(r"\n([ \t]*)\}\s*$", like_text).group(1)
        return "{\n" + ",\n".join(f'{indent}"{k}": {v}' for k, v in items) + "\n" + closing + "}"
    return "{" + ", ".join(f'"{k}": {v}' for k, v in items) + "}"


def edit_text(text, wanted, note):
    """`text` with each input's adversarial distribution as in `wanted` (name -> dist or
    None) and `notes` set to `note`."""
    root = scan_json(text)
    edits = []  # (start, end, replacement)
    inputs = member(root, "inputs")[1]
    for obj in inputs.children:
        name = json.loads(text[member(obj, "name")[1].start:member(obj, "name")[1].end])
        want = wanted.get(name)
        have = member(obj, "adversarial")
        dist = member(obj, "distribution")
        like = text[dist[1].start:dist[1].end] if dist else None
        if want is None and have is None:
            continue
        if want is not None and have is not None:
            edits.append((have[1].start, have[1].end, render_dist(want, like)))
            continue
        if want is None:
            # remove `, "adversarial": {...}` (with the separator before it)
            kstart, v = have
            prev_end = kstart
            while text[prev_end - 1] in " \t\r\n":
                prev_end -= 1
            assert text[prev_end - 1] == ","
            edits.append((prev_end - 1, v.end, ""))
            continue
        last_key, last_v = obj.children[-1][1], obj.children[-1][2]
        anchor = dist[1] if dist else last_v
        anchor_key = dist[0] if dist else last_key
        line_start = text.rfind("\n", 0, anchor_key) + 1
        between = text[line_start:anchor_key]
        if between.strip() == "":
            sep = ",\n" + between  # one key a line
        else:
            sep = ", "
        edits.append((anchor.end, anchor.end, sep + '"adversarial": ' + render_dist(want, like)))
    notes = member(root, "notes")
    if notes is None:
        raise ValueError("the file has no notes")
    old_raw = text[notes[1].start:notes[1].end]
    new_raw = json.dumps(note)
    if json.loads(old_raw) != note:
        edits.append((notes[1].start, notes[1].end, new_raw))
    for start, end, rep in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + rep + text[end:]
    return text


def apply(p, overrides, sentence_text):
    notes = p.doc.get("notes", "")
    base = SENTENCE.sub("", notes)
    if sentence_text:
        note = (base.rstrip() + " " + sentence_text) if base.strip() else sentence_text
    else:
        note = base
    wanted = {name: (overrides or {}).get(name) for name in p.inputs}
    new = edit_text(p.text, wanted, note)
    doc = json.loads(new)
    assert list(doc) == list(p.doc), "the keys changed"
    for inp, old in zip(doc["inputs"], p.doc["inputs"]):
        if wanted[inp["name"]] is None:
            assert "adversarial" not in inp
        else:
            assert inp["adversarial"] == wanted[inp["name"]]
        assert {k: v for k, v in inp.items() if k != "adversarial"} == \
            {k: v for k, v in old.items() if k != "adversarial"}
    assert doc["notes"] == note
    return new
