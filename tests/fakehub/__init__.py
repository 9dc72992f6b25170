"""fakehub: a fake GitHub (GraphQL + REST) on loopback for the real `gh` binary.

    from tests.fakehub import FakeHub, Fault
    with FakeHub("fixtures/scenarios/demo.json") as hub:
        subprocess.run(["gh", "api", "graphql", "-f", "query={viewer{login}}"], env=hub.child_env())

See fixtures/scenarios/README.md for the scenario format and tests/fakehub/hub.py for the API.
"""

from .faults import Fault
from .hub import DEMO_SCENARIO, FakeHub
from .scenario import ScenarioError
from .server import Request, SchemaViolation
from .world import World

__all__ = ["DEMO_SCENARIO", "FakeHub", "Fault", "Request", "ScenarioError", "SchemaViolation", "World"]
