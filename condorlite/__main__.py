"""``python -m condorlite``: the same entry point as the console script."""

from condorlite.cli import main

if __name__ == "__main__":
    main()
