from __future__ import annotations

import threading

from sqlalchemy import inspect

from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.store.migrate import upgrade


def test_upgrade_is_idempotent_and_safe_to_run_concurrently(settings: Settings) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            upgrade(settings)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    upgrade(settings)
    assert "alembic_version" in inspect(database_for(settings).engine).get_table_names()
