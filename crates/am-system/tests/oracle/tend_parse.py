"""Run AbstractMemory 0.3.2's `parse_tend_block` over a corpus of tend
block bodies (each with its cap) and print the answers, for the
differential test `tests/candidates` (module `tend`).

Usage: python tend_parse.py
"""

import json

from abstractmemory.tend import IDENTITY_SCOPE_PENDING_RULING, TEND_VERBS, parse_tend_block

BLOCKS = [
    ("pin: ex:a — reason: it matters\nsilence: ex:b -- reason: it may recede\n", 5),
    ("```tend\n\n  refocus: — reason: the topic moved  \n```\n", 5),
    ("refocus: ex:a — reason: no target allowed\nrefocus: —reason:\n", 5),
    ("PIN : ex:a – REASON : caps and en dash\nRevisit:ex:c—reason:tight", 5),
    ("pin: ex:a\npin: — reason: no target\npin: ex:a ex:b — reason: two", 5),
    ("hug: ex:a — reason: not a verb\njust words\n: nothing\n", 5),
    ("dispose: ex:dream-1 confirm relation=supports source=ex:a target=ex:b evidence=ex:e1,,ex:e2 — reason: the day joined them", 5),
    ("dispose: ex:dream-1 REJECT — reason: it did not hold\ndispose: ex:dream-1 — reason: no disposition\n"
     "dispose: ex:d maybe — reason: x\ndispose: ex:d confirm color=red — reason: x\n"
     "dispose: ex:d confirm relation= — reason: x\ndispose: ex:d confirm relation — reason: x", 5),
    ("\n".join(f"pin: ex:r{i} — reason: r{i}" for i in range(8)), 5),
    ("\n".join(f"silence: ex:r{i} — reason: r{i}" for i in range(4)), 2),
    ("heal_scar: ev-1 — reason: it changed\r\nbreak_bond: ev-2 — reason: it broke\rrevisit: ex:q — reason: look\u2028pin: ex:z — reason: z", 5),
    ("pin: ex:a — reason: one — reason: two\npin: ex:a —— reason: double dash\npin: ex:a --- reason: triple", 5),
    ("pin: ex:a - reason: single hyphen\npin: ex:a — reasons: plural\npin: ex:a —reason  :  spaced ", 5),
    ("pin_it: ex:a — reason: x\n_: ex:a — reason: x\npin ex:a — reason: no colon", 5),
    ("", 5),
    ("pin: ex:a — reason: x", 1),
]


def main() -> None:
    out = [{"text": t, "max_elections": cap, "answer": parse_tend_block(t, max_elections=cap)}
           for t, cap in BLOCKS]
    errors = []
    for cap in (0, -1):
        try:
            parse_tend_block("pin: ex:a — reason: x", max_elections=cap)
        except ValueError as e:
            errors.append({"max_elections": cap, "error": type(e).__name__})
    json.dump({"blocks": out, "errors": errors, "verbs": list(TEND_VERBS),
               "identity_scope_pending_ruling": IDENTITY_SCOPE_PENDING_RULING},
              __import__("sys").stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
