"""Where a view is named: the URL state, the query it sends, the filter choices, the pages."""
