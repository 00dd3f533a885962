from typing import Any, Dict, Optional, Union

from ._paimon_rs import *  # noqa: F401,F403
from ._paimon_rs import __version__ as __version__

def read_table(
    path: str,
    *,
    options: Optional[Dict[str, str]] = None,
    batch_size: int = 8192,
    threads: Optional[int] = None,
    memory_budget: Union[int, str, None] = None,
    **scan_kwargs: Any,
) -> Any:
    """Opens, scans (``Table.scan`` arguments) and reads the table into a ``pyarrow.Table``."""
