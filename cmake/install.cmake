# placeholder: install/export rules
