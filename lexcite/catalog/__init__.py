"""The catalog (SQLite): acts, versions, units, facts, amendment links and fetch bookkeeping.

It is the trust root for "which version is current" and the only code that reads or writes
the catalog's tables; every other stage uses its typed API::

    catalog.py   Catalog: store(), versions(), records(), resolve(), history(), facts(), links(), ...
    locate.py    acts and provisions as people write them ('Art. 6(2) AI Act', 'GDPR') -> stored units
    dates.py     when each unit is in force and applies, from the stored date facts
    schema.py    the named, ordered migrations (run once each, on open)
    _rows.py     SQLite rows <-> contract types (UnitRecord, VersionRow, Fact, AmendmentLink)
"""

from lexcite.catalog.catalog import Catalog, FetchRecord, Source, StoreResult, catalog_path
from lexcite.contract import STATUSES, UnitRecord, VersionRow

__all__ = ["Catalog", "Source", "StoreResult", "FetchRecord", "UnitRecord", "VersionRow", "STATUSES", "catalog_path"]
