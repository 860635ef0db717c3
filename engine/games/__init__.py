"""Every game, one package each. Importing this package registers them all."""
