"""Seam JSON shapes of AbstractMemory 0.3.2 for the am-system differential test:
RecallBudget and entity_recall_budget profiles, a Stimulus, and the id and
fingerprint derivations of algorithms.md §9."""

import json
import sys

from abstractmemory.seam import RecallBudget, Stimulus, entity_recall_budget
from abstractmemory.reconstruct import _query_fingerprint
from abstractmemory.selection import selection_event_id, selection_snapshot_id

stimulus = Stimulus(cue_text="  Pool outage é ", patterns=({"subject": "ex:a", "limit": 5},),
                    anchor_record_ids=(" a ", ""), participants=("person:ada",),
                    embedding=(0.5, 1.0), as_of=3, turn_id=" ", cue_source="steer")
out = {
    "default_budget": RecallBudget().to_dict(),
    "custom_budget": RecallBudget(min_activation=0.5, stm_floor=2.0, self_fraction=0.5).to_dict(),
    "entity_budgets": [entity_recall_budget(w, shelf_size=s, token_fraction=f).to_dict()
                       for (w, s, f) in [(50_000, 12, 0.12), (20_000, 12, 0.12), (100_000, 50, 0.12),
                                         (4801, 12, 0.5), (1_000_000, 150, 0.3)]],
    "stimulus": stimulus.to_dict(),
    "fingerprint": _query_fingerprint(stimulus),
    "event_id": selection_event_id("t", "co_selected", "a+b"),
    "snapshot_id": selection_snapshot_id("t"),
}
json.dump(out, sys.stdout, ensure_ascii=False)
