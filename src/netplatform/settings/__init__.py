"""One settings object for the whole process, read from ``NETPLATFORM_*`` environment variables.

Each service's settings are a model of their own in this package (``BusSettings``,
``RouterSettings``, ...), which can be read alone; :class:`Settings` composes them with the
kernel's, so a deployment is configured in one place and every service reads the same object.
Each field's environment name is its upper-cased name with the ``NETPLATFORM_`` prefix
(``delivery_retry_initial_s`` -> ``NETPLATFORM_DELIVERY_RETRY_INITIAL_S``).
"""

from __future__ import annotations

from typing import Self

from pydantic import model_validator
from pydantic_settings import SettingsConfigDict

from .blueprints import BlueprintsSettings
from .bus import BusSettings
from .console import ConsoleSettings
from .distribution import DistributionSettings
from .kernel import SERVED_NAMES, SERVICE_NAMES, KernelSettings
from .router import RouterSettings
from .users import DEFAULT_USERS, WELL_KNOWN_PASSWORDS, UserEntry, parse_user_entries, parse_users

__all__ = [
    "DEFAULT_USERS",
    "SERVED_NAMES",
    "SERVICE_NAMES",
    "WELL_KNOWN_PASSWORDS",
    "BlueprintsSettings",
    "BusSettings",
    "ConsoleSettings",
    "DistributionSettings",
    "KernelSettings",
    "RouterSettings",
    "Settings",
    "UserEntry",
    "parse_user_entries",
    "parse_users",
]


class Settings(
    KernelSettings, BlueprintsSettings, DistributionSettings, BusSettings, RouterSettings, ConsoleSettings
):
    """Every setting of the process: the kernel's and each service's (policy, the config tree and
    authz have none of their own beyond the kernel's)."""

    model_config = SettingsConfigDict(env_prefix="NETPLATFORM_", extra="ignore")

    @model_validator(mode="after")
    def _follow_central_distribution(self) -> Self:
        # An edge's one setting (KernelSettings.central_url) names central's distribution service
        # too: at this site's distribution port, unless NETPLATFORM_DISTRIBUTION_CENTRAL_URL says.
        if self.central_url and not self.distribution_central_url:
            self.distribution_central_url = f"{self.central_url}:{self.distribution_port}"
        return self
