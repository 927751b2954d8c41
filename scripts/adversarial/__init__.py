"""The parts of scripts/kernelbench_adversarial.py (the command line): expression (the stage
syntax), evaluation (its float64 evaluator and Problem, a problem file), targets (the
computations a numerical shortcut gets wrong), decision (the adversarial distributions and
the notes' sentence) and json_edit (the edits of a file's text)."""
