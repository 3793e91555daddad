"""The main window: menus, files, recovery, settings and the dialogs it opens."""
