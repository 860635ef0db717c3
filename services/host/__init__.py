"""The host: tables between people. It keeps each table's latest token in a store (:mod:`.store`), takes the
players' moves in order, pushes each audience its own updates (Watch), and plays a slow seat's turn on a timer,
calling TableService like any client. ``docs/host.md`` describes it for integrators who bring their own."""
