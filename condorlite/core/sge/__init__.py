"""Grid Engine's scheduler policies (Sun N1 Grid Engine 6.1 / SoGE 8.1.9): objects,
urgency, override, functional and share-tree tickets, and the job priority."""
