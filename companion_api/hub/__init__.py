"""A club's tables on one scoreboard (INTERFACES §6): tables publish to an MQTT broker, the hub reads.

``broker`` parses the broker address and credentials; ``outbox`` and ``publisher`` are the table
side (``companion serve --hub``); ``board`` and ``app`` are the hub (``companion hub``).
"""
