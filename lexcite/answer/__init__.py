"""Answering: evidence, generation, verification, the numeric channel, conflicts and traces.

Public surface::

    from lexcite.answer import ask, replay
    answer = ask("Which AI practices are prohibited?", Perimeter(acts=("32024R1689",)))
"""

from lexcite.answer.ask import GENERATORS, GeneratorChoice, ReplayReport, ask, choose_generator, replay
from lexcite.answer.draft import Draft, Generator
from lexcite.answer.trace import TraceStore
from lexcite.answer.verify import Verification, verify

__all__ = ["ask", "replay", "ReplayReport", "choose_generator", "GeneratorChoice", "GENERATORS", "Draft", "Generator",
           "TraceStore", "Verification", "verify"]
