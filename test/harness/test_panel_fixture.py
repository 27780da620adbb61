"""The panel's recorded event stream (test/panel/fixtures/events.jsonl) follows the harness's event schema."""

import json
import unittest
from pathlib import Path

from support import schema_problems

RECORDED = Path(__file__).resolve().parents[1] / "panel" / "fixtures" / "events.jsonl"


class RecordedStreamTest(unittest.TestCase):
    def test_recorded_events_match_the_schema(self):
        events = [json.loads(line) for line in RECORDED.read_text().splitlines() if line.strip()]
        self.assertGreater(len(events), 3)
        self.assertEqual(schema_problems(events), [])


if __name__ == "__main__":
    unittest.main()
