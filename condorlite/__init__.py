"""condorlite: HTCondor's accountant, ClassAds and negotiator on one machine."""

__version__ = "0.1.0"
