"""Run trees by layout: folders, units, workers, the cache, and one bad file among good ones."""
