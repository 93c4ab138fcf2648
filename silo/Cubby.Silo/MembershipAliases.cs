// Orleans' implicit usings bring its own SiloStatus and MembershipEntry; in this project the names mean Cubby's.
global using MembershipEntry = Cubby.Silo.Cluster.Membership.MembershipEntry;
global using SiloStatus = Cubby.Silo.Cluster.Membership.SiloStatus;
