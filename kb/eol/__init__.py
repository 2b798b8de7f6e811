"""End of support for the whole stack (`kb eol`): support windows per product cycle
(`windows`), the product names and their aliases (`products`), the iCalendar feed (`ics`).
"""
