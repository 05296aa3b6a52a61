"""Which tests are slow: the one place the ``slow`` marker is given (issue 27).

``make test-fast`` runs ``-m "not slow"``: the unit and single-service tests. A test is slow when
it runs whole ``netplatform serve`` processes (e2e, chaos), drives a browser (the console's
pages), generates requests from a whole OpenAPI document (fuzz, openapi examples), or took
more than 5 s in a measured run (``pytest --durations``; SLOW_TESTS names those, with the
time seen).
"""

# ruff: noqa: E501 -- SLOW_TESTS names tests whole, one a line, as pytest prints them
from __future__ import annotations

import pytest

SLOW_FOLDERS = ("e2e", "chaos")
"""Whole platforms in child processes: 12 to 36 s a test (chaos), several seconds each (e2e)."""

SLOW_FILES = (
    "test_fuzz.py",
    "test_openapi_examples.py",
    "web/test_replay.py",
    "blueprints/execution/test_isolation.py",
    "distribution/test_edge_store.py",
)
"""Schemathesis over every operation: about 150 s (fuzz), 15 to 47 s per service (examples); two
``netplatform serve`` processes per module (replay: 16 to 18 s to start them); a ``netplatform
serve`` process under 50 concurrent runs (execution isolation: 7 to 12 s); sites on their own
stores (edge store: a central and an edge process per test). A file name, or a path
below tests/."""

SLOW_FIXTURES = frozenset({"page", "browser"})
"""The console's browser tests: a Chromium per module, a page load per step."""

SLOW_TESTS: dict[str, str] = {
    "blueprints/deploy/test_deploy.py::test_two_instances_deploy_to_one_device_one_after_the_other": "24 s",
    "blueprints/deploy/test_docs_example.py::test_the_worked_example_deploys_as_the_page_says": "18 s",
    "blueprints/deploy/test_deploy.py::test_one_run_deploys_five_devices_in_parallel": "15 s",
    "blueprints/deploy/test_deploy.py::test_a_device_without_a_candidate_is_edited_in_running_and_read_back": "11 s",
    "blueprints/deploy/test_deploy.py::test_assign_then_deploy_puts_the_rendered_values_in_the_running_config": "13 s",
    "blueprints/deploy/test_deploy.py::test_a_confirmed_commit_that_is_never_confirmed_leaves_the_old_config": "10 s",
    "blueprints/deploy/test_deploy.py::test_rollback_restores_the_config_from_before_the_last_deploy": "8 s",
    "blueprints/deploy/test_deploy.py::test_an_invalid_value_fails_the_step_with_the_devices_rpc_error_and_leaves_it_unchanged": "7 s",
    "blueprints/deploy/test_deploy.py::test_a_wrong_password_is_a_clear_failure": "7 s",
    "blueprints/deploy/test_deploy.py::test_check_answers_a_diff_and_changes_nothing": "7 s",
    "blueprints/deploy/test_deploy.py::test_a_failing_device_fails_the_run_and_the_output_says_which_succeeded": "6 s",
    "blueprints/deploy/test_devices.py::test_a_device_password_is_nowhere_in_clear": "6 s",
    "blueprints/deploy/test_deploy.py::test_a_lock_held_by_another_session_is_a_clear_lock_denied_failure": "5 s",
    "test_services.py::test_every_protected_route_refuses_missing_and_wrong_credentials": "32 s",
    "test_cli.py::test_serve_starts_all_six_and_the_console_with_configured_users_and_stops_gracefully": "30 s",
    "distribution/test_retention.py::test_publish_refused_while_spool_is_under_its_floor": "24 s",
    "distribution/test_delivery_passwords.py::test_secrets_rotate_seals_the_passwords_again_with_the_new_key": "12 s",
    "distribution/test_reliability.py::test_sigkill_after_204_loses_no_acknowledged_file": "23 s",
    "test_workers.py::test_two_workers_share_every_port_and_stop_on_sigterm": "18 s",
    "bus/test_router_provisioning.py::test_a_revoke_the_router_did_not_take_is_retried": "14 s",
    "distribution/test_delivery.py::test_files_older_than_the_expiry_end_with_retries_exhausted": "12 s",
    "test_cli.py::test_data_written_before_a_restart_is_there_after_it": "11 s",
    "test_cli.py::test_an_instance_with_another_platform_key_than_the_store_refuses_to_start": "8 s",
    "bus/test_router_provisioning.py::test_a_client_role_is_granted_and_a_replaced_client_loses_its_old_grant": "10 s",
    "bus/test_bridges.py::test_central_to_global_and_global_to_fqdn": "9 s",
    "bus/test_topics.py::test_configured_default_style_applies": "8 s",
    "authz/test_storage.py::test_no_password_is_stored_or_logged_in_clear": "8 s",
    "distribution/test_retention.py::test_age_bound_removes_old_records_and_keeps_recent_ones": "7 s",
    "bus/test_router_provisioning.py::test_a_target_that_reads_another_admin_topic_leaves_the_bridge_invalid": "7 s",
    "test_cli.py::test_only_starts_the_named_services": "7 s",
    "test_cli.py::test_default_credentials_warn": "7 s",
    "router/test_mirror_settings.py::test_the_agents_follow_the_admin_topic_they_are_told": "7 s",
    "authz/test_enforcement.py::test_a_membership_opens_reads_and_its_removal_closes_them_on_every_instance": "7 s",
    "bus/test_feeds.py::test_publishers": "6 s",
    "bus/test_bridges.py::test_agents_overflow_and_topics_leave_with_their_clients": "6 s",
    "bus/test_feeds.py::test_feed_filters": "6 s",
    "console/test_sessions.py::test_a_deleted_identitys_session_ends": "6 s",
    "bus/test_router_provisioning.py::test_deleting_a_client_removes_what_it_added_unless_another_needs_it": "6 s",
    "distribution/test_endpoint_passwords.py::test_the_migration_hashes_the_passwords_stored_before": "6 s",
    "distribution/test_publish.py::test_publish_ids_strictly_increase": "6 s",
    "authz/test_enforcement.py::test_a_changed_password_or_deleted_identity_stops_working_on_every_instance": "6 s",
    "authz/test_credentials.py::test_a_password_is_changed_and_the_old_one_stops_working": "6 s",
    "distribution/test_endpoint_passwords.py::test_a_changed_password_is_refused_at_once_and_the_new_one_taken": "6 s",
    "router/test_mirror_status.py::test_an_unreachable_source_is_failing_on_every_instance_until_it_answers": "5 s",
    "distribution/test_privileged.py::test_a_file_is_offered_again_until_acknowledged": "5 s",
    "bus/test_router_provisioning.py::test_what_authz_did_not_take_is_invalid_and_retried": "5 s",
    "distribution/test_retention.py::test_spooled_files_expire_disk_full_oldest_first": "5 s",
    "distribution/test_retention.py::test_count_bound_keeps_each_feeds_newest_records": "5 s",
    "console/test_sessions.py::test_netplatform_serve_starts_the_console_and_it_finds_the_services_by_their_ports": "5 s",
    "router/test_authorization.py::test_no_one_but_a_router_admin_defines_mirror_agents": "8 s",
    "router/test_mirror_status.py::test_an_agent_whose_source_is_its_own_router_copies_nothing": "8 s",
    # A second measured run (--durations=60, after test databases became copies of a migrated
    # one), load average 5 to 9:
    "test_cli.py::test_sigterm_lets_the_process_exit_even_when_idle_connections_are_open": "32 s",
    "blueprints/execution/test_resolution.py::test_jinja_templates_cannot_loop_or_compute_without_bound": "14 s",
    "blueprints/execution/test_onapsdk.py::test_onapsdk_executes_a_workflow_and_reads_the_stored_template": "6 s",
    # A third (issue 40: --durations=150, after tests hashed passwords at test cost), load
    # average 2; 197 s for the lane before these moved:
    "router/test_background_jobs.py::test_the_engine_and_the_mirror_supervisor_are_jobs_of_the_kernel": "8 s",
    "blueprints/execution/test_render_bounds.py::test_one_blueprint_cannot_hold_every_renderer": "6 s (teardown)",
    "authz/test_replica.py::test_without_central_the_site_decides_from_its_replica_within_its_bound_then_503": "5 s",
}
"""Further tests (a node id's part after ``tests/``, parameters left out) and the longest call of
one in a measured run: ``pytest -m "not slow" -n 2 --durations=120``, 2026-12-07, two cores under
a load average of 8 to 10 (other work on the machine), so the times are high by up to two or three
times; each of these starts processes, waits out timers, or hashes passwords."""


def is_slow(item: pytest.Item) -> bool:
    path = item.path.as_posix()
    below = path.split("/tests/", 1)[-1]
    if below.split("/", 1)[0] in SLOW_FOLDERS or item.path.name in SLOW_FILES or below in SLOW_FILES:
        return True
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    name = item.nodeid.split("[", 1)[0].split("tests/", 1)[-1]
    return name in SLOW_TESTS


def mark_slow(items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)
