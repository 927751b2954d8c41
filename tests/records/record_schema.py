"""The record schema (bench/record.schema.json) for the record tests: the errors of a
record, or of one result row, against it; the test is skipped without python3-jsonschema."""
import json
import os
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_schema():
    with open(os.path.join(ROOT, "bench", "record.schema.json")) as f:
        return json.load(f)


def schema_errors(value, definition=None):
    """The messages of `value` against the schema, or against its $defs/DEFINITION."""
    try:
        import jsonschema
    except ImportError:
        raise unittest.SkipTest("python3-jsonschema is not installed")
    schema = load_schema()
    if definition:
        schema = dict(schema, **{"$ref": "#/$defs/" + definition})
        for key in ("required", "properties", "additionalProperties", "type"):
            schema.pop(key, None)
    return [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(value)]
