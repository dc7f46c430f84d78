"""Improvement goals: the coaching loop's records, their writers and their verification.

A speaker picks a focus area ("fewer filler openings"); each later batch
checks whether it moved. ``generation`` finds the current scoring generation
and its post-batch full-cohort baseline, ``metric`` measures a pattern goal
over talks, ``rubric`` turns baseline, target and current value into a
status, ``verify`` assesses every goal (comparability first) and builds the
one verification plan, ``records`` builds the goals writer's plans, and
``run`` ties a command's request to the one apply protocol.
"""
