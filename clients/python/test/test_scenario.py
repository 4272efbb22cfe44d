"""The scenario (scenario.py) against a ``canopy serve`` of its own, as a test."""

from __future__ import annotations

import unittest

from canopy_serve import CanopyServe
from scenario import run_scenario

STEPS = [
    "auth_verify", "account", "webhook_create", "create", "get", "webhook_verify", "webhook_manage",
    "list_all_pages", "update", "archive_restore_delete", "not_found", "validation_error", "assets",
    "members", "events", "overlaps", "boundaries", "imports", "webhook_delete", "network_error_retry", "server_error_retry", "rate_limit_retry",
]


class ScenarioTest(unittest.TestCase):
    def test_scenario_against_a_live_server(self) -> None:
        server = CanopyServe()
        try:
            result = run_scenario(server.url, server.token, server.free_token)
        finally:
            server.stop()
        self.assertTrue(result["ok"], f"step {result.get('step')}: {result.get('error')}\n{result.get('trace', '')}")
        self.assertEqual(list(result["steps"]), STEPS)
        steps = result["steps"]
        self.assertEqual(steps["archive_restore_delete"], {"archived": "archived", "restored": "active", "deleted": True})
        self.assertEqual(steps["not_found"]["status"], 404)
        self.assertEqual(steps["validation_error"]["status"], 422)
        self.assertEqual(steps["network_error_retry"]["retries"], 2)
        self.assertEqual(steps["server_error_retry"]["attempts"], 3)
        self.assertGreaterEqual(steps["rate_limit_retry"]["retries"], 1)
        self.assertEqual(steps["boundaries"], {"versions": 3, "restored_from": 1, "missing_status": 404})
        self.assertEqual(steps["imports"], {"preview": "completed", "created": 2, "cancel_status": 409})


if __name__ == "__main__":
    unittest.main()
