"""A chat-loop host over abstractmemory_rs (docs/python.md, "The example").

Each turn: recall for the user's message (reconstruct), answer from what
came back (a model-free stand-in here), commit what the answer used
(commit_selection), then form the turn as a record whose title memory
writes later (pending). Between turns the host drains the memory task
queue: it selects a window, claims the tasks, reads each task's packet and
settles it through the understanding verb with an ``author`` stub that
needs no model. At the end of the conversation it runs a sleep pass with the
same ``author``.

Run: ``python examples/python/chat_loop.py [HOME.sqlite3]`` (a temporary
home when none is given). It prints one line per turn and a summary, and
exits non-zero if the loop did not hold together.
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, Dict, List

import abstractmemory_rs as am

HOST = {"kind": "operator", "id": "chat-host"}
SCOPE, OWNER = "session", "chat-1"

CONVERSATION = [
    "Ada signed the lease on allotment plot 14 behind the library.",
    "Chiara says she will bring San Marzano tomato seedlings from her balcony.",
    "Bram is building the raised beds from leftover cedar planks.",
    "Who is bringing the tomato seedlings?",
    "What are the raised beds made of?",
]


def author(kind: str, body: str, context: Dict[str, Any]) -> Dict[str, Any]:
    """The model-free author: the first words of the body as the title, the
    body as the summary, signed by the host."""
    words = body.split()
    title = " ".join(words[:6]).rstrip(".,;:") or kind
    return {"title": title, "summary": body, "author": HOST}


def answer(message: str, recalled: List[Any]) -> str:
    """A stand-in for the host's model: quote the best recalled record."""
    if not recalled:
        return "I don't remember anything about that yet."
    return f"From memory: {recalled[0]['content']}"


def drain(system: am.MemorySystem) -> int:
    """One window of the task queue, settled with the author stub; answers
    the number of tasks settled."""
    selected = system.tasks.select_for_window(budget_seconds=60)
    ids = [t["task_id"] for t in selected["tasks"]]
    if not ids:
        return 0
    claimed = system.tasks.claim(tasks=ids, holder="chat-host", window="turn")
    settled = 0
    for task in claimed["claimed"]:
        packet = system.task_packet(task_id=task["task_id"])
        target = packet["target"]
        body = target.get("digest") or target.get("content") or ""
        words = author(task["kind"], body, {"pass": "chat", "record_kind": "episode"})
        if task["kind"] == "title.author":
            out = system.retitle(record_id=task["target_id"], title=words["title"], author=HOST,
                                 cause="formation", expected_version=packet["expected_version"],
                                 task_id=task["task_id"])
        else:
            out = system.rewrite_digest(record_id=task["target_id"], digest=words["summary"], author=HOST,
                                        cause="formation", expected_version=packet["expected_version"],
                                        task_id=task["task_id"])
        if out["applied"]:
            settled += 1
        else:
            system.tasks.release(task_id=task["task_id"], holder="chat-host", outcome="skip", reason="refused")
    return settled


def main(home: Path) -> int:
    system = am.MemorySystem(store=am.SQLiteTripleStore(home, embedder=am.OfflineEmbedder()),
                             journal=am.SQLiteJournal(home), task_queue=True)
    settled_total, used_total = 0, 0
    for turn, message in enumerate(CONVERSATION, start=1):
        trace = f"turn-{turn}"
        shelf = system.reconstruct(stimulus={"cue_text": message}, scopes=[[SCOPE, OWNER]],
                                   budget={"shelf_size": 3}, trace_id=trace)
        recalled = [system.payload(record_id=h["record_id"]) for h in shelf.handles]
        reply = answer(message, recalled)
        if shelf.handles:
            used = [shelf.handles[0]["record_id"]]
            system.commit_selection(trace_id=trace, used_record_ids=used)
            used_total += len(used)
        system.remember_many(
            records=[{"kind": "episode", "title": None, "pending": ["title"], "digest": message}],
            scope=SCOPE, owner_id=OWNER, idempotency_key=trace,
        )
        settled = drain(system)
        settled_total += settled
        print(f"turn {turn}: recalled {len(shelf.handles)}, settled {settled} task(s) | {reply}")
    night = system.sleep_pass(scopes=[[SCOPE, OWNER]], owner_id=OWNER, author=author)
    pending = system.pending_records(scopes=[[SCOPE, OWNER]])
    print(f"summary: {len(CONVERSATION)} turns, {used_total} used, {settled_total} tasks settled, "
          f"{len(pending)} record(s) still pending, night phases {night['phases']}")
    system.close()
    ok = settled_total >= len(CONVERSATION) and used_total >= 1 and not pending
    return 0 if ok else 1


if __name__ == "__main__":
    warnings.simplefilter("ignore", am.MemoryWarning)
    if len(sys.argv) > 1:
        sys.exit(main(Path(sys.argv[1])))
    with tempfile.TemporaryDirectory() as d:
        sys.exit(main(Path(d) / "chat.sqlite3"))
