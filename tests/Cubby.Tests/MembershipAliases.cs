// Orleans' implicit usings bring its own membership types; in these tests the names mean Cubby's.
global using IMembershipTable = Cubby.Silo.Cluster.Membership.IMembershipTable;
global using MembershipEntry = Cubby.Silo.Cluster.Membership.MembershipEntry;
global using SiloStatus = Cubby.Silo.Cluster.Membership.SiloStatus;
